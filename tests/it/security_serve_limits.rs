//! Issue 15: what a hostile or careless client can do to a served environment. Defect 4: MCP
//! sessions are capped (`REA_MAX_SESSIONS`), refused with a clear error past the cap, and a
//! closed session frees its place. Defect 5: credential-named values the recording holds are
//! redacted in every answer (`--keep-credentials` opts out).

use crate::serve_support;

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::{Value, json};
use serve_support::process::{Server, address};

/// One raw HTTP/1.1 exchange over loopback (`Connection: close`): status, head, body.
pub fn exchange(address: &str, request: &[u8]) -> (u16, String, String) {
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, head.to_owned(), body.to_owned())
}

/// A POST to `/mcp` with these extra header lines and body.
pub fn post_mcp(address: &str, extra_headers: &str, body: &str) -> (u16, String, String) {
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{extra_headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    exchange(address, request.as_bytes())
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then_some(value.trim())
    })
}

fn initialize(address: &str) -> (u16, String, String) {
    let message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "rea-tests", "version": "1"}}
    });
    post_mcp(address, "", &message.to_string())
}

fn json_server(env: &[(&str, &str)]) -> Server {
    Server::start(
        &[
            "json-server.manifest.json",
            "--evidence",
            "json-server.capture.json",
            "--port",
            "0",
        ],
        env,
    )
}

#[test]
fn mcp_sessions_past_the_cap_are_refused_with_a_clear_error_until_one_closes() {
    let mut server = json_server(&[("REA_MAX_SESSIONS", "3")]);
    let address = address(&server.url());
    let sessions: Vec<String> = (0..3)
        .map(|_| {
            let (status, head, body) = initialize(&address);
            assert_eq!(status, 200, "{head}\n{body}");
            header(&head, "mcp-session-id")
                .expect("a session id")
                .to_owned()
        })
        .collect();
    let (status, head, body) = initialize(&address);
    assert_eq!(status, 503, "the fourth session is refused: {head}\n{body}");
    assert!(header(&head, "retry-after").is_some(), "{head}");
    let reply: Value = serde_json::from_str(&body).expect("a JSON-RPC error body");
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["error"]["code"], -32000, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("3 MCP sessions") && message.contains("REA_MAX_SESSIONS"),
        "{message}"
    );
    assert_eq!(reply["error"]["data"]["max_sessions"], 3, "{reply}");

    // Closing one frees its place.
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nMcp-Session-Id: {}\r\n\
         Mcp-Protocol-Version: 2025-06-18\r\n\r\n",
        sessions[0]
    );
    let (status, head, _) = exchange(&address, delete.as_bytes());
    assert_eq!(status, 200, "{head}");
    let (status, head, body) = initialize(&address);
    assert_eq!(status, 200, "{head}\n{body}");
    server.signal("TERM");
    let _ = server.finish();
}

#[test]
fn a_session_cap_that_is_not_a_positive_number_is_a_configuration_error() {
    for value in ["0", "-1", "many"] {
        let server = json_server(&[("REA_MAX_SESSIONS", value)]);
        let (code, _, stderr) = server.finish();
        assert_eq!(code, Some(2), "{value}: {stderr:?}");
        assert!(
            stderr.iter().any(|line| line.contains("REA_MAX_SESSIONS")),
            "{value}: {stderr:?}"
        );
    }
}

/// A capture whose one read carries credential-named values in its query and its answer, and a
/// paging token that is not a credential.
fn credential_capture() -> String {
    let body = json!({
        "items": [{"id": 1, "name": "first"}],
        "session_token": "SECRET-BODY-456",
        "next_page_token": "PAGE-789",
    })
    .to_string();
    let entry = json!({
        "startedDateTime": "2024-05-01T10:00:00.000Z", "time": 5,
        "request": {"method": "GET", "url": "https://api.example.com/items?api_key=SECRET-QUERY-123&page=1",
                    "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [{"name": "X-Api-Key", "value": "SECRET-HEADER-789"}],
                    "queryString": [{"name": "api_key", "value": "SECRET-QUERY-123"}, {"name": "page", "value": "1"}],
                    "headersSize": -1, "bodySize": -1},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": [{"name": "Content-Type", "value": "application/json"}],
                     "content": {"size": body.len(), "mimeType": "application/json", "text": body},
                     "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
    });
    json!({"log": {"version": "1.2", "creator": {"name": "rea-tests", "version": "1"}, "entries": [entry]}})
        .to_string()
}

fn served_answer_text(name: &str, extra: &[&str]) -> (String, Value, String) {
    serve_support::process::project_har(name, &credential_capture());
    let manifest = format!("{name}.manifest.json");
    let capture = format!("{name}.capture.json");
    let mut args = vec![
        manifest.as_str(),
        "--evidence",
        capture.as_str(),
        "--port",
        "0",
        // Replay answers the call without arguments with the recording (the state answers only
        // the recording of that very request).
        "--replay-only",
    ];
    args.extend_from_slice(extra);
    let mut server = Server::start(&args, &[]);
    let url = server.url();
    let result = serve_support::process::call_tool(&url, "get_items", &json!({}));
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let card = serve_support::process::card(&url).to_string();
    server.signal("TERM");
    let (_, _, stderr) = server.finish();
    (text, result, format!("{card}\n{}", stderr.join("\n")))
}

#[test]
fn recorded_credentials_are_redacted_in_answers_cards_and_logs() {
    let (text, result, card_and_log) = served_answer_text("credentials-redacted", &[]);
    let shown = format!("{text}\n{result}\n{card_and_log}");
    for secret in ["SECRET-QUERY-123", "SECRET-BODY-456", "SECRET-HEADER-789"] {
        assert!(!shown.contains(secret), "{secret} was served: {shown}");
    }
    let answer: Value = serde_json::from_str(&text).expect("a JSON answer");
    assert_eq!(
        answer["replay"]["recorded_query"], "?api_key=[redacted]&page=1",
        "{answer}"
    );
    assert_eq!(answer["body"]["session_token"], "[redacted]", "{answer}");
    assert_eq!(
        answer["body"]["next_page_token"], "PAGE-789",
        "a paging token is no credential"
    );
    assert_eq!(answer["body"]["items"][0]["name"], "first");
}

#[test]
fn keep_credentials_serves_them_as_recorded() {
    let (text, _, _) = served_answer_text("credentials-kept", &["--keep-credentials"]);
    assert!(text.contains("SECRET-QUERY-123"), "{text}");
    assert!(text.contains("SECRET-BODY-456"), "{text}");
}

/// The JSON-RPC error of a refused `/mcp` body: HTTP 400 and `{jsonrpc, id: null, error}`.
fn refused_mcp_body(address: &str, extra_headers: &str, body: &str) -> Value {
    let (status, head, text) = post_mcp(address, extra_headers, body);
    assert_eq!(status, 400, "{body:?}: {head}\n{text}");
    assert!(
        header(&head, "content-type").is_some_and(|value| value.starts_with("application/json")),
        "{head}"
    );
    let reply: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
    assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
    reply
}

fn session(address: &str, revision: &str) -> String {
    let message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": revision, "capabilities": {},
                   "clientInfo": {"name": "rea-tests", "version": "1"}}
    });
    let (status, head, body) = post_mcp(address, "", &message.to_string());
    assert_eq!(status, 200, "{head}\n{body}");
    assert!(
        body.contains(&format!("\"protocolVersion\":\"{revision}\"")),
        "{body}"
    );
    header(&head, "mcp-session-id").expect("session").to_owned()
}

#[test]
fn malformed_mcp_bodies_are_400_with_a_json_rpc_error() {
    let mut server = json_server(&[]);
    let address = address(&server.url());
    for body in ["", "{bad", "[1,"] {
        let reply = refused_mcp_body(&address, "", body);
        assert_eq!(reply["error"]["code"], -32700, "{body:?}: {reply}");
        assert_eq!(reply["id"], Value::Null);
    }
    for body in ["{}", "42", r#"{"jsonrpc":"2.0"}"#, "[]"] {
        let reply = refused_mcp_body(&address, "", body);
        assert_eq!(reply["error"]["code"], -32600, "{body:?}: {reply}");
    }
    // A batch on a revision without batches (2025-06-18 dropped them).
    let id = session(&address, "2025-06-18");
    let batch = r#"[{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}]"#;
    let headers = format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n");
    let reply = refused_mcp_body(&address, &headers, batch);
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("2025-03-26"),
        "{reply}"
    );
    server.signal("TERM");
    let _ = server.finish();
}

#[test]
fn a_2025_03_26_session_accepts_batches() {
    let mut server = json_server(&[]);
    let address = address(&server.url());
    let id = session(&address, "2025-03-26");
    let batch = json!([
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
         "params": {"name": "get_posts_by_id", "arguments": {"id": "1"}}},
        {"jsonrpc": "2.0", "id": 8, "method": "initialize",
         "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                    "clientInfo": {"name": "rea-tests", "version": "1"}}}
    ]);
    let (status, head, body) = post_mcp(
        &address,
        &format!("Mcp-Session-Id: {id}\r\n"),
        &batch.to_string(),
    );
    assert_eq!(status, 200, "{head}\n{body}");
    let replies: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{body}"));
    let replies = replies.as_array().expect("an array of replies");
    assert_eq!(replies.len(), 3, "one reply per request: {body}");
    assert_eq!(replies[0]["id"], "a");
    assert!(
        replies[0]["result"]["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty())
    );
    assert_eq!(replies[1]["id"], 7);
    assert_eq!(replies[1]["result"]["isError"], false, "{body}");
    assert_eq!(replies[2]["id"], 8);
    assert_eq!(
        replies[2]["error"]["code"], -32600,
        "initialize is never batched: {body}"
    );
    // Notifications and responses only: 202, no body.
    let (status, _, body) = post_mcp(
        &address,
        &format!("Mcp-Session-Id: {id}\r\n"),
        r#"[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}]"#,
    );
    assert_eq!((status, body.as_str()), (202, ""));
    server.signal("TERM");
    let _ = server.finish();
}

#[test]
fn the_data_plane_names_out_of_range_numbers_and_deep_nesting() {
    let mut server = json_server(&[]);
    let address = address(&server.url());
    let call = |params: &str| {
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"data/add","params":{params}}}"#);
        let request = format!(
            "POST /agentenv HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let (status, _, text) = exchange(&address, request.as_bytes());
        assert_eq!(status, 200, "{text}");
        serde_json::from_str::<Value>(&text).unwrap_or_else(|_| panic!("{text}"))
    };
    let reply = call(r#"{"parts":[{"kind":"data","data":{"a":[1,1e400]}}]}"#);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("out of a double's range") && message.contains("/parts/0/data/a/1"),
        "{message}"
    );
    let deep = format!(
        r#"{{"parts":[{{"kind":"data","data":{}{}}}]}}"#,
        "[".repeat(130),
        "]".repeat(130)
    );
    let reply = call(&deep);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("deeper than 128"), "{message}");
    server.signal("TERM");
    let _ = server.finish();
}

#[test]
fn two_host_headers_are_refused_400() {
    let mut server = json_server(&[]);
    let address = address(&server.url());
    for hosts in [
        format!("Host: {address}\r\nHost: evil.example\r\n"),
        format!("Host: evil.example\r\nHost: {address}\r\n"),
        format!("Host: {address}\r\nHost: {address}\r\n"),
    ] {
        let request = format!("GET /ready HTTP/1.1\r\n{hosts}Connection: close\r\n\r\n");
        let (status, head, body) = exchange(&address, request.as_bytes());
        assert_eq!(status, 400, "{hosts:?}: {head}\n{body}");
    }
    server.signal("TERM");
    let _ = server.finish();
}

/// Whether the server closed a connection that sent `sent` and then nothing, within `wait`.
fn closed_within(address: &str, sent: &[u8], wait: Duration) -> (bool, String) {
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream.write_all(sent).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut answer = Vec::new();
    let closed = match stream.read_to_end(&mut answer) {
        Ok(_) => true,
        Err(error) => !matches!(
            error.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    };
    (closed, String::from_utf8_lossy(&answer).into_owned())
}

#[test]
fn slow_headers_and_slow_bodies_are_timed_out() {
    let mut server = json_server(&[
        ("REA_HEADER_TIMEOUT_SECONDS", "1"),
        ("REA_BODY_TIMEOUT_SECONDS", "1"),
    ]);
    let address = address(&server.url());
    let head = format!("GET /ready HTTP/1.1\r\nHost: {address}\r\nX-Slow: ");
    let (closed, _) = closed_within(&address, head.as_bytes(), Duration::from_secs(20));
    assert!(closed, "a request head that never ends is cut off");
    for path in ["/mcp", "/agentenv"] {
        let partial = format!(
            "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\""
        );
        let (closed, answer) = closed_within(&address, partial.as_bytes(), Duration::from_secs(20));
        assert!(closed, "{path}: a body that never ends is cut off");
        assert!(answer.starts_with("HTTP/1.1 408"), "{path}: {answer}");
        assert!(answer.contains("\"jsonrpc\":\"2.0\""), "{path}: {answer}");
    }
    server.signal("TERM");
    let _ = server.finish();
}

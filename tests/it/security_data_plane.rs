//! Issue 15: the data plane under hostile or careless use. Defect 6: what `data/get` returns must
//! load with `data/add` (served writes never grow the state past the limit both share). Defect 8
//! (data-plane parts): a download that never answers stalls the plane briefly, `https://` loads
//! refuse loopback and private addresses unless allowed, an allow-list bounds `file://` and
//! `https://` sources, and a missing file answers exactly as an unreadable one.

use crate::security_serve_limits::exchange;
use crate::serve_support;
use crate::state_support;

use std::time::{Duration, Instant};

use rea_backends::fetch::FetchOptions;
use rea_serve::RpcError;
use serde_json::{Map, Value, json};
use serve_support::process::{Server, address};
use state_support::plane_calls::{call, run, runtime};
use state_support::{Served, serve, serve_with};

/// The limit `data/add` loads and `data/get` may report, as the spec states it (32 MiB).
const STATE_LIMIT: usize = 32 * 1024 * 1024;

fn load_uri(served: &Served, uri: &str) -> Result<Value, RpcError> {
    run(
        served,
        "data/add",
        Some(json!({"parts": [{"kind": "file", "file": {"uri": uri}}]})),
    )
}

fn reason_of(error: &RpcError) -> String {
    error
        .data
        .as_ref()
        .and_then(|data| data.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or("<none>")
        .to_owned()
}

#[test]
fn served_writes_never_grow_the_state_past_what_data_add_loads() {
    let served = serve("json-server/build.har");
    // Each create answers its entity, within the 256 KiB reply limit.
    let filler = "x".repeat(200 * 1024);
    let mut refused = None;
    for attempt in 0..400 {
        let mut arguments = Map::new();
        arguments.insert(
            "body".to_owned(),
            json!({"title": format!("big {attempt}"), "body": filler, "author": "probe"}),
        );
        let (answer, is_error) = served.call("post_posts", arguments);
        if is_error {
            refused = Some(answer);
            break;
        }
    }
    let refused = refused.expect("a write past the limit is refused");
    assert_eq!(refused["error"]["code"], "resource_constraint", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("data/add"),
        "{refused}"
    );
    let reported = run(&served, "data/get", None).expect("data/get answers");
    let document = &reported["parts"][0]["data"];
    let bytes = serde_json::to_vec(document).expect("json");
    assert!(
        bytes.len() > STATE_LIMIT - 256 * 1024 && bytes.len() <= STATE_LIMIT,
        "the state stops just under the limit: {} bytes",
        bytes.len()
    );
    let folder = tempfile::tempdir().expect("temp");
    let path = folder.path().join("state.json");
    std::fs::write(&path, &bytes).expect("write");
    let loaded = load_uri(&served, &format!("file://{}", path.display()));
    assert_eq!(loaded.expect("what data/get reported loads"), json!({}));
    let again = run(&served, "data/get", None).expect("data/get answers");
    assert_eq!(
        &again["parts"][0]["data"], document,
        "the load is the same state"
    );
}

/// A loopback listener that accepts connections and never answers; its URL.
async fn silent_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    format!("http://{address}/state.json")
}

#[test]
fn a_download_that_never_answers_stalls_the_data_plane_only_briefly() {
    let options = FetchOptions {
        allow_http_loopback: true,
        ..FetchOptions::default()
    };
    let served = serve_with("json-server/build.har", options);
    runtime().block_on(async {
        let uri = silent_server().await;
        let started = Instant::now();
        let error = served
            .plane
            .run(call(
                "data/add",
                Some(json!({"parts": [{"kind": "file", "file": {"uri": uri}}]})),
            ))
            .await
            .expect_err("no answer");
        assert_eq!(reason_of(&error), "timeout", "{error:?}");
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "a silent server held the data plane {:?}",
            started.elapsed()
        );
    });
}

#[test]
fn https_loads_refuse_loopback_and_private_addresses_by_default() {
    let served = serve("json-server/build.har");
    for uri in [
        "https://127.0.0.1:9/state.json",
        "https://localhost:9/state.json",
        "https://[::1]:9/state.json",
    ] {
        let error = load_uri(&served, uri).expect_err("refused");
        assert_eq!(error.code, RpcError::INVALID_PARAMS, "{uri}: {error:?}");
        assert!(
            error.message.contains("REA_DATA_ADD_ALLOW"),
            "{uri}: {}",
            error.message
        );
        assert!(!error.message.contains("127.0.0.1"), "{}", error.message);
    }
}

#[test]
fn a_missing_file_answers_exactly_as_an_unreadable_one() {
    let served = serve("json-server/build.har");
    let folder = tempfile::tempdir().expect("temp");
    let missing = load_uri(
        &served,
        &format!("file://{}", folder.path().join("absent.json").display()),
    )
    .expect_err("missing");
    let directory =
        load_uri(&served, &format!("file://{}", folder.path().display())).expect_err("directory");
    assert_eq!(
        (missing.code, &missing.message, &missing.data),
        (directory.code, &directory.message, &directory.data),
        "a caller cannot tell a missing file from an unreadable one"
    );
}

fn agentenv(address: &str, method: &str, params: &Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let request = format!(
        "POST /agentenv HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (status, _, text) = exchange(address, request.as_bytes());
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("{text}"))
}

#[test]
fn an_allow_list_bounds_the_files_data_add_reads() {
    let allowed = tempfile::tempdir().expect("temp");
    let other = tempfile::tempdir().expect("temp");
    let allow = format!("file:{}", allowed.path().display());
    let mut server = Server::json_server(&[("REA_DATA_ADD_ALLOW", &allow)]);
    let address = address(&server.url());
    let reported = agentenv(&address, "data/get", &json!({}));
    let document = reported["result"]["parts"][0]["data"].clone();
    for folder in [allowed.path(), other.path()] {
        std::fs::write(folder.join("state.json"), document.to_string()).expect("write");
    }
    let load = |folder: &std::path::Path| {
        let uri = format!("file://{}", folder.join("state.json").display());
        agentenv(
            &address,
            "data/add",
            &json!({"parts": [{"kind": "file", "file": {"uri": uri}}]}),
        )
    };
    let inside = load(allowed.path());
    assert_eq!(inside["result"], json!({}), "{inside}");
    let outside = load(other.path());
    assert_eq!(outside["error"]["code"], -32602, "{outside}");
    assert!(
        outside["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("REA_DATA_ADD_ALLOW"),
        "{outside}"
    );
    server.signal("TERM");
    let _ = server.finish();
}

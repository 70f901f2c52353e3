//! Reused answers on the `tools/call` fast path (`rea_serve::answer_cache`): a call repeated while
//! the backend's generation holds is answered the first answer's bytes around its own id, without
//! reaching the backend, statelessly and in a session; a moved generation, another argument
//! spelling or a tool the backend does not vouch for reaches it again. Served from the state of
//! recorded applications (the shared json-server capture, the json-server v1 and FeathersJS
//! corpus apps), a read repeated after a served write or `data/reset` answers the state that
//! write or reset left, and the same read repeated answers the same bytes.

use crate::serve_support as support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use rea_serve::{AppOptions, BoxFuture, ToolAnswer, ToolBackend, ToolDescriptor};
use serde_json::{Map, Value, json};
use support::process::{Server, address, input_json, request};
use support::{TestBackend, legacy_session, meta_2026, send};

/// The test backend, vouching for its read tool's answers at a generation the test moves.
struct Reusing {
    inner: TestBackend,
    generation: AtomicU64,
}

impl ToolBackend for Reusing {
    fn server_name(&self) -> &str {
        self.inner.server_name()
    }
    fn instructions(&self) -> &str {
        self.inner.instructions()
    }
    fn tools(&self) -> &[ToolDescriptor] {
        self.inner.tools()
    }
    fn card(&self) -> &Value {
        self.inner.card()
    }
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, ToolAnswer> {
        self.inner.call_tool(name, arguments)
    }
    fn answer_generation(&self, name: &str) -> Option<u64> {
        (name == "get_users_by_id").then(|| self.generation.load(Ordering::SeqCst))
    }
}

fn reusing_app() -> (axum::Router, Arc<Reusing>) {
    let backend = Arc::new(Reusing {
        inner: TestBackend::new("test-env"),
        generation: AtomicU64::new(0),
    });
    let app = rea_serve::app(
        backend.clone(),
        Arc::new(rea_serve::ReplayDataPlane::replay_only()),
        AppOptions::default(),
    );
    (app, backend)
}

/// A `tools/call` body with `arguments` spelled as given.
fn call_text(id: &Value, name: &str, arguments: &str, meta: Option<&Value>) -> String {
    let meta = meta.map_or(String::new(), |meta| format!(",\"_meta\":{meta}"));
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}{meta}}}}}"#
    )
}

/// `POST /mcp` of a raw body; `sdk` adds a quality parameter to `Accept` (legal), which the fast
/// path leaves to the SDK.
fn post(body: String, headers: &[(&str, &str)], sdk: bool) -> Request<Body> {
    let accept = if sdk {
        "application/json;q=1, text/event-stream"
    } else {
        "application/json, text/event-stream"
    };
    let mut builder = Request::post("/mcp")
        .header("host", "127.0.0.1:8765")
        .header("content-type", "application/json")
        .header("accept", accept);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(Body::from(body)).unwrap()
}

fn calls(backend: &Reusing) -> usize {
    backend.inner.calls.lock().unwrap().len()
}

#[tokio::test]
async fn a_repeated_stateless_call_is_the_first_answer_around_its_id_until_the_generation_moves() {
    let (app, backend) = reusing_app();
    let meta = meta_2026();
    let headers = |name| {
        [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
        ]
    };
    let read = |id: Value, arguments: &str| {
        post(
            call_text(&id, "get_users_by_id", arguments, Some(&meta)),
            &headers("get_users_by_id"),
            false,
        )
    };
    let (status, _, first) = send(&app, read(json!(1), r#"{"id":"2"}"#)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(calls(&backend), 1);
    for id in [json!(1), json!("again \"é\""), json!(-4)] {
        let (_, fast_headers, fast) = send(&app, read(id.clone(), r#"{"id":"2"}"#)).await;
        assert_eq!(calls(&backend), 1, "the kept answer answered {id}");
        let sdk = call_text(&id, "get_users_by_id", r#"{"id":"2"}"#, Some(&meta));
        let (_, sdk_headers, sdk) = send(&app, post(sdk, &headers("get_users_by_id"), true)).await;
        assert_eq!(
            String::from_utf8(fast).unwrap(),
            String::from_utf8(sdk).unwrap()
        );
        assert_eq!(fast_headers["content-type"], sdk_headers["content-type"]);
        backend.inner.calls.lock().unwrap().pop(); // the SDK's call
    }
    let (_, _, again) = send(&app, read(json!(1), r#"{"id":"2"}"#)).await;
    assert_eq!(again, first);
    assert_eq!(calls(&backend), 1);

    // Another spelling of the arguments, other arguments, a moved generation, and a tool the
    // backend does not vouch for reach the backend.
    send(&app, read(json!(1), r#"{"id": "2"}"#)).await;
    assert_eq!(calls(&backend), 2);
    send(&app, read(json!(1), r#"{"id":"3"}"#)).await;
    assert_eq!(calls(&backend), 3);
    backend.generation.fetch_add(1, Ordering::SeqCst);
    let (_, _, moved) = send(&app, read(json!(1), r#"{"id":"2"}"#)).await;
    assert_eq!(calls(&backend), 4);
    assert_eq!(moved, first);
    send(&app, read(json!(1), r#"{"id":"2"}"#)).await;
    assert_eq!(calls(&backend), 4);
    for _ in 0..2 {
        let delete = call_text(
            &json!(1),
            "delete_users_by_id",
            r#"{"id":"2"}"#,
            Some(&meta),
        );
        send(&app, post(delete, &headers("delete_users_by_id"), false)).await;
    }
    assert_eq!(calls(&backend), 6);

    // Each answered call is journaled, kept answers as their first call was.
    let peer = rea_serve::server::PeerAddress(std::net::SocketAddr::from(([127, 0, 0, 1], 9)));
    let journal = Request::get("/agentenv/journal?limit=200")
        .header("host", "127.0.0.1:8765")
        .extension(axum::extract::ConnectInfo(peer))
        .body(Body::empty())
        .unwrap();
    let (status, _, journal) = send(&app, journal).await;
    assert_eq!(status, StatusCode::OK);
    let journal: Value = serde_json::from_slice(&journal).unwrap();
    let reads: Vec<&Value> = journal["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["name"] == "get_users_by_id")
        .collect();
    assert_eq!(reads.len(), 12, "{journal}");
    let digests: std::collections::BTreeSet<String> = reads
        .iter()
        .map(|entry| entry["arguments"].to_string())
        .collect();
    assert_eq!(digests.len(), 2, "{journal}");
    assert!(
        reads
            .iter()
            .all(|entry| entry["status"] == "ok" && entry["source"] == "unspecified")
    );
}

#[tokio::test]
async fn a_repeated_session_call_is_the_sdks_message_in_one_event_until_the_generation_moves() {
    let (app, backend) = reusing_app();
    for version in ["2025-06-18", "2025-11-25"] {
        let (session, _) = legacy_session(&app, version).await;
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", version),
        ];
        // Sessions share the state, so a kept answer answers every session's same call; a
        // moved generation makes this session's first call reach the backend.
        backend.generation.fetch_add(1, Ordering::SeqCst);
        let before = calls(&backend);
        let call = |id: Value| call_text(&id, "get_users_by_id", r#"{"id":"2"}"#, None);
        send(&app, post(call(json!(1)), &headers, false)).await;
        assert_eq!(calls(&backend), before + 1);
        let (status, _, fast) = send(&app, post(call(json!("two")), &headers, false)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            calls(&backend),
            before + 1,
            "the kept answer answered at {version}"
        );
        let (_, _, sdk) = send(&app, post(call(json!("two")), &headers, true)).await;
        let sdk = String::from_utf8(sdk).unwrap();
        let message = sdk
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .find(|data| !data.is_empty())
            .unwrap();
        assert_eq!(
            String::from_utf8(fast).unwrap(),
            format!("data: {message}\n\n")
        );
        backend.generation.fetch_add(1, Ordering::SeqCst);
        send(&app, post(call(json!(3)), &headers, false)).await;
        assert_eq!(calls(&backend), before + 3);
    }
}

/// A recorded application served from its state, with the collection whose list a create
/// changes.
struct App {
    name: &'static str,
    list: &'static str,
    create: &'static str,
    collection: &'static str,
}

const APPS: [App; 3] = [
    App {
        name: "json-server",
        list: "get_posts",
        create: "post_posts",
        collection: "/posts",
    },
    App {
        name: "json-server-v1",
        list: "get_notes",
        create: "post_notes",
        collection: "/notes",
    },
    App {
        name: "feathers",
        list: "get_tasks",
        create: "post_tasks",
        collection: "/tasks",
    },
];

/// A stateless `tools/call`'s whole reply body, as written.
fn reply_text(url: &str, name: &str, arguments: &Value) -> String {
    let body = call_text(&json!(7), name, &arguments.to_string(), Some(&meta_2026()));
    let headers = [
        ("Mcp-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", name),
    ];
    let (status, text) = request(&address(url), "POST", "/mcp", &headers, Some(&body));
    assert_eq!(status, 200, "{text}");
    text
}

/// The answer document a reply carries.
fn answer(reply: &str) -> Value {
    let reply: Value = serde_json::from_str(reply).unwrap();
    let text = reply["result"]["content"][0]["text"].as_str();
    serde_json::from_str(text.unwrap_or_else(|| panic!("no answer: {reply}"))).unwrap()
}

/// The request body of the capture's first create in the collection.
fn recorded_create(app: &App) -> Value {
    let capture = input_json(&format!("{}.capture.json", app.name));
    let exemplar = capture["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|record| record["method"] == "POST" && record["path"] == app.collection)
        .unwrap_or_else(|| panic!("{}: no recorded create", app.name));
    serde_json::from_str(exemplar["request"]["body"]["text"].as_str().unwrap()).unwrap()
}

#[test]
fn a_read_repeated_after_a_write_or_reset_answers_the_state_they_left() {
    for app in &APPS {
        crate::serve_state_mode::shared(app.name);
        let manifest = format!("{}.manifest.json", app.name);
        let capture = format!("{}.capture.json", app.name);
        let args = [manifest.as_str(), "--evidence", capture.as_str()];
        let mut server = Server::start(&args, &[("REA_LOG_LEVEL", "trace")]);
        let url = server.url();
        let list = || reply_text(&url, app.list, &json!({}));
        let first = list();
        assert_eq!(
            answer(&first)["state"]["source"],
            "state",
            "{}: {first}",
            app.name
        );
        assert_eq!(list(), first, "{}: the same read, the same bytes", app.name);

        // A served write between two identical reads: the second answers the state it left.
        let create = json!({"body": recorded_create(app)});
        let created = answer(&reply_text(&url, app.create, &create));
        assert_eq!(created["status"], 201, "{}: {created}", app.name);
        let written = list();
        assert_ne!(written, first, "{}: the read after the write", app.name);
        assert_eq!(list(), written, "{}", app.name);

        // data/reset between two identical reads: the second answers the derived state again.
        let reset = crate::serve_state_mode::data_call(&url, "data/reset", None);
        assert_eq!(reset["result"], json!({}), "{}", app.name);
        assert_eq!(list(), first, "{}: the read after data/reset", app.name);

        // The two repeated reads were answered from kept answers, the others by the state.
        server.signal("TERM");
        let (code, _, stderr) = server.finish();
        assert_eq!(code, Some(143), "{stderr:?}");
        let kept = stderr
            .iter()
            .filter(|line| line.contains("answered on the fast path from a kept answer"))
            .count();
        assert_eq!(kept, 2, "{}", app.name);
    }
}

//! Echoing a call's query in the order it was sent (issue 12): Fortune, flask-rest-jsonapi-next
//! and safrs repeat a list call's query in their answer (`links.self`, the page links) as the URL
//! sent it, and their builds show it (a recorded call whose echo keeps an order neither name
//! order nor the other calls give it: `query_order::shows_sent_order`, `mark_echoed`). A tool
//! call's arguments reach the state as a JSON object, which keeps no order; the MCP route reads
//! the order from the arguments' text (`rea_serve::arguments::SentOrder`, on the fast path and,
//! through the request's parts, on the SDK's, a batch's calls too) and environment-compare
//! passes the probe URL's, so the echo follows the caller's order; with no order known it
//! follows the recorded calls'.
//! Served through the real `/mcp` router from the apps' recordings (a kept answer is keyed by the
//! arguments' text, so one order's never answers the other), and measured through
//! environment-compare on their probes.

use rea_compare::adapter::Mode;
use serde_json::{Value, json};

use crate::serve_support::{legacy_session, mcp_messages, meta_2026, send};
use crate::state_support::{Served, call_with_strings, capture_file, corpus_dir, serve_corpus_app};

/// A stateless `tools/call` whose arguments are written as `arguments` (JSON text, its members
/// in the order to send), answered on the `/mcp` route: the answer document.
async fn call_written(app: &axum::Router, tool: &str, arguments: &str) -> Value {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},"_meta":{}}}}}"#,
        meta_2026()
    );
    let request = axum::http::Request::post("/mcp")
        .header("host", "127.0.0.1:8765")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(axum::body::Body::from(body))
        .expect("a request");
    let (status, _, bytes) = send(app, request).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    answer_of(&mcp_messages(&bytes)[0])
}

/// The answer document of a `tools/call` reply.
fn answer_of(reply: &Value) -> Value {
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("an answer: {reply}"));
    serde_json::from_str(text).expect("JSON")
}

/// The `/mcp` router over an app's state.
fn router(served: &Served) -> axum::Router {
    rea_serve::app(
        served.backend.clone(),
        served.plane.clone(),
        rea_serve::AppOptions::default(),
    )
}

/// The query of an answer's `links.self`.
fn self_query(answer: &Value) -> String {
    let link = answer["body"]["links"]["self"]
        .as_str()
        .unwrap_or_else(|| panic!("a self link: {answer:#}"));
    link.split_once('?')
        .map_or("", |(_, query)| query)
        .to_owned()
}

/// One app's call, written in two orders, with the echo each order gets.
struct Case {
    app: &'static str,
    tool: &'static str,
    /// The arguments in an order that is neither name order nor the recorded calls', and the
    /// echo's query then.
    sent: (&'static str, &'static str),
    /// The same arguments in name order, and the echo's query then.
    named: (&'static str, &'static str),
}

const CASES: [Case; 3] = [
    Case {
        app: "fortune",
        tool: "get_tasks",
        sent: (
            r#"{"filter[project]":"4","filter[assignee]":"1"}"#,
            "filter%5Bproject%5D=4&filter%5Bassignee%5D=1",
        ),
        named: (
            r#"{"filter[assignee]":"1","filter[project]":"4"}"#,
            "filter%5Bassignee%5D=1&filter%5Bproject%5D=4",
        ),
    },
    Case {
        app: "flask-rest-jsonapi-next",
        tool: "get_tasks",
        sent: (
            r#"{"page[number]":2,"page[size]":4}"#,
            "page%5Bnumber%5D=2&page%5Bsize%5D=4",
        ),
        // The build sent `page[size]` first: where no order is known, its order; sent, as sent.
        named: (
            r#"{"page[size]":4,"page[number]":2}"#,
            "page%5Bsize%5D=4&page%5Bnumber%5D=2",
        ),
    },
    Case {
        app: "safrs",
        tool: "get_api_tasks",
        sent: (
            r#"{"include":"project","filter[project_id]":"3"}"#,
            "include=project&filter[project_id]=3&page[offset]=0&page[limit]=250",
        ),
        named: (
            r#"{"filter[project_id]":"3","include":"project"}"#,
            "filter[project_id]=3&include=project&page[offset]=0&page[limit]=250",
        ),
    },
];

#[tokio::test]
async fn an_mcp_client_gets_its_query_echoed_in_the_order_it_wrote_the_arguments() {
    for case in &CASES {
        let served = serve_corpus_app(case.app);
        let app = router(&served);
        // Each order twice: the second call is answered from the kept answer of its own text
        // (`answer_cache.rs` keys by the arguments' text), never the other order's.
        for (arguments, echoed) in [case.sent, case.named, case.sent, case.named] {
            let answer = call_written(&app, case.tool, arguments).await;
            assert_eq!(
                answer["state"]["source"], "state",
                "{}: {answer:#}",
                case.app
            );
            assert_eq!(self_query(&answer), echoed, "{}: {arguments}", case.app);
        }
    }
}

#[test]
fn a_call_whose_order_is_not_known_is_echoed_in_the_recorded_calls_order() {
    // The backend called without an order (as the data plane and older callers do): the
    // recorded calls' order (`query_order.rs`), whatever order the caller had in mind.
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    let (answer, is_error) = call_with_strings(
        &served,
        "get_tasks",
        &[("page[number]", "2"), ("page[size]", "4")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(self_query(&answer), "page%5Bsize%5D=4&page%5Bnumber%5D=2");
}

#[tokio::test]
async fn a_call_the_sdk_answers_in_a_session_keeps_the_written_order_too() {
    for case in &CASES {
        let served = serve_corpus_app(case.app);
        let app = router(&served);
        let (session, _) = legacy_session(&app, "2025-06-18").await;
        for (arguments, echoed) in [case.sent, case.named] {
            // A `_meta` member besides a progress token: the fast path leaves the call to the SDK.
            let message = json!({
                "jsonrpc": "2.0", "id": 9, "method": "tools/call",
                "params": {
                    "name": case.tool,
                    "arguments": serde_json::from_str::<Value>(arguments).expect("JSON"),
                    "_meta": {"progressToken": 1, "note": "sdk"}
                }
            });
            // `json!` keeps no order: the body is written with the arguments' text as given.
            let text = message
                .to_string()
                .replace(&message["params"]["arguments"].to_string(), arguments);
            let reply = in_session_text(&app, &session, &text).await;
            let answer = answer_of(&reply);
            assert_eq!(self_query(&answer), echoed, "{}: {arguments}", case.app);
        }
    }
}

#[tokio::test]
async fn a_call_in_a_batch_keeps_the_written_order_too() {
    let case = &CASES[1];
    let served = serve_corpus_app(case.app);
    let app = router(&served);
    let (session, _) = legacy_session(&app, "2025-03-26").await;
    let call = |id: u64, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{}","arguments":{arguments}}}}}"#,
            case.tool
        )
    };
    let body = format!("[{},{}]", call(1, case.sent.0), call(2, case.named.0));
    let request = axum::http::Request::post("/mcp")
        .header("host", "127.0.0.1:8765")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-03-26")
        .body(axum::body::Body::from(body))
        .expect("a request");
    let (status, _, bytes) = send(&app, request).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    let replies: Vec<Value> = serde_json::from_slice(&bytes).expect("a JSON array");
    for (id, echoed) in [(1, case.sent.1), (2, case.named.1)] {
        let reply = replies
            .iter()
            .find(|reply| reply["id"] == id)
            .unwrap_or_else(|| panic!("reply {id}: {replies:?}"));
        assert_eq!(self_query(&answer_of(reply)), echoed);
    }
}

/// One request, written as `text`, within a legacy session at 2025-06-18, and its reply.
async fn in_session_text(app: &axum::Router, session: &str, text: &str) -> Value {
    let request = axum::http::Request::post("/mcp")
        .header("host", "127.0.0.1:8765")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-06-18")
        .body(axum::body::Body::from(text.to_owned()))
        .expect("a request");
    let (status, _, bytes) = send(app, request).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    mcp_messages(&bytes)
        .into_iter()
        .find(|message| message["id"] == 9)
        .unwrap_or_else(|| panic!("a reply: {}", String::from_utf8_lossy(&bytes)))
}

#[test]
fn environment_compare_calls_in_the_probe_urls_order() {
    let steps: [(&str, &[u64]); 3] = [
        ("fortune", &[6]),
        ("flask-rest-jsonapi-next", &[28, 29, 38]),
        ("safrs", &[18, 25]),
    ];
    for (app, ordinals) in steps {
        let build = capture_file(&corpus_dir(app).join("build.har"));
        let probe = capture_file(&corpus_dir(app).join("probe-reads.har"));
        let (_, manifest) =
            rea_manifest::project_manifest_evidence(&build, &crate::state_support::rules())
                .expect("manifest");
        let comparison = rea_compare::compare(&rea_compare::CompareInputs {
            manifest: &manifest,
            capture: &build,
            probes: std::slice::from_ref(&probe),
            mode: Mode::State,
            rules: rea_tests::fidelity::default_rules().expect("rules"),
        })
        .expect("compared");
        let report = serde_json::to_value(&comparison.report).expect("report");
        let steps = report["probes"][0]["steps"].as_array().expect("steps");
        for ordinal in ordinals {
            let step = steps
                .iter()
                .find(|step| step["ordinal"] == *ordinal)
                .unwrap_or_else(|| panic!("{app}: step {ordinal}"));
            assert_eq!(step["agrees"], true, "{app}: {step:#}");
            assert_eq!(step["source"], "state", "{app}: {step:#}");
        }
    }
}

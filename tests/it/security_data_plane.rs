//! Issue 15: the data plane under hostile or careless use. Defect 6: what `data/get` returns must
//! load with `data/add` (served writes never grow the state past the limit both share). Defect 8
//! (data-plane parts): a download that never answers stalls the plane briefly, `https://` loads
//! refuse loopback and private addresses unless allowed, an allow-list bounds `file://` and
//! `https://` sources, and a missing file answers exactly as an unreadable one.

use crate::state_support;

use rea_serve::{DataCall, RpcError, ShutdownToken as CancellationToken};
use serde_json::{Map, Value, json};
use state_support::{Served, serve};

/// The limit `data/add` loads and `data/get` may report, as the spec states it (32 MiB).
const STATE_LIMIT: usize = 32 * 1024 * 1024;

fn call(method: &str, params: Option<Value>) -> DataCall {
    DataCall {
        method: method.to_owned(),
        params,
        params_raw: None,
        expects_reply: true,
        cancel: CancellationToken::new(),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

fn run(served: &Served, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
    runtime().block_on(served.plane.run(call(method, params)))
}

fn load_uri(served: &Served, uri: &str) -> Result<Value, RpcError> {
    run(
        served,
        "data/add",
        Some(json!({"parts": [{"kind": "file", "file": {"uri": uri}}]})),
    )
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

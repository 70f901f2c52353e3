//! The server over a real loopback socket, driven through the library: binding, the refusal of a
//! non-loopback bind without an allowlist, and a stop that cancels pending calls without waiting
//! for them.

use crate::serve_support as support;

use std::time::{Duration, Instant};

use rea_serve::config::ListenConfig;
use rea_serve::server::{self, StopSignal};
use rea_serve::{AppOptions, HostAllowlist, ShutdownToken};
use serde_json::Value;
use support::*;

fn loopback() -> ListenConfig {
    ListenConfig {
        host: "127.0.0.1".to_owned(),
        port: 0,
        allowed_hosts: HostAllowlist::loopback(),
        allowlist_declared: false,
    }
}

// contract: EXPORT-049
#[tokio::test]
async fn a_bind_outside_loopback_without_an_allowlist_is_refused_before_binding() {
    for host in ["0.0.0.0", "::"] {
        let config = ListenConfig {
            host: host.to_owned(),
            ..loopback()
        };
        let error = server::bind(&config).await.unwrap_err();
        assert_eq!(error.refusal().code, "configuration_invalid", "{host}");
    }
}

// contract: SERVE-014, DATA-039, DATA-041, DATA-042, DATA-044
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_closes_the_listener_and_cancels_pending_calls_without_waiting() {
    let bound = server::bind(&loopback()).await.unwrap();
    let address = bound.address.to_string();
    assert!(bound.address.ip().is_loopback());
    assert_eq!(bound.url, format!("http://{address}/mcp"));
    let shutdown = ShutdownToken::new();
    let (app, plane) = scripted_app(AppOptions {
        shutdown: shutdown.clone(),
        ..AppOptions::default()
    });
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server::serve(bound, app, shutdown, async move {
        let _ = stop_rx.await;
        StopSignal::Terminate
    }));

    // A call that would run for 30 s is in flight when the stop comes.
    let pending = {
        let address = address.clone();
        tokio::task::spawn_blocking(move || {
            let body = r#"[{"jsonrpc":"2.0","id":1,"method":"slow","params":{"tag":"download"}},
                           {"jsonrpc":"2.0","id":2,"method":"echo","params":{"tag":"queued"}}]"#;
            http(&address, "POST", "/agentenv", &address, Some(body))
        })
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while plane.log.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let stopped_at = Instant::now();
    stop_tx.send(()).unwrap();
    let signal = tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(signal, StopSignal::Terminate);
    assert!(stopped_at.elapsed() < server::SHUTDOWN_GRACE + Duration::from_secs(1));

    let (status, body) = pending.await.unwrap();
    assert_eq!(status, 200, "{body}");
    let replies: Vec<Value> = serde_json::from_str(&body).unwrap();
    for reply in &replies {
        assert_eq!(reply["error"]["data"]["reason"], "cancelled", "{reply}");
    }
    // The download started and ended early (it would take 30 s); whether it saw its token or was
    // dropped first, the call queued after it never ran.
    let log = plane.log.lock().unwrap().clone();
    assert_eq!(log[0], "start:download");
    assert!(
        log[1..].iter().all(|entry| entry == "cancelled:download"),
        "{log:?}"
    );
    assert!(std::net::TcpStream::connect(&address).is_err());
}

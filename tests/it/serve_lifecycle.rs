//! `rea environment-serve` as a process, around its listener's life: a signal during input
//! loading or DNS/bind, a listener that fails after binding, host and port resolved exactly as
//! `rea mcp --http` resolves them, and what the process does to its machine (one read of each
//! input, no process launched, nothing written, no outbound connection but a `data/add`
//! download). Servers bind 127.0.0.1 only.

use crate::serve_support as support;

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::process::{Server, address, binary, card, free_port, input_json, inputs, request};

fn replay_args() -> Vec<&'static str> {
    vec![
        "json-server.manifest.json",
        "--evidence",
        "json-server.capture.json",
        "--replay-only",
    ]
}

/// The refusal lines (JSON with a `code`) of a run's stderr.
fn refusals(stderr: &[String]) -> Vec<Value> {
    stderr
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|value| value.get("code").is_some())
        .collect()
}

// contract: SERVE-018, SERVE-019, SERVE-020
#[test]
fn a_signal_during_input_loading_or_binding_is_a_cancelled_result_with_the_signal_status() {
    // The load and the bind take milliseconds; `REA_TEST_HOLD` (a test-only hook, see
    // `rea_evidence::test_hooks`) holds the named stage after announcing it, so the signal
    // arrives inside it without racing it.
    for (stage, during) in [("loading", "input loading"), ("binding", "binding")] {
        for (signal, status) in [("INT", 130), ("TERM", 143)] {
            let port = free_port();
            let port_text = port.to_string();
            let mut server = Server::start(
                &[replay_args(), vec!["--port", &port_text]].concat(),
                &[("REA_TEST_HOLD", stage)],
            );
            server.wait_for_line(|line| line["msg"] == "test hold" && line["stage"] == stage);
            server.signal(signal);
            let (code, stdout, stderr) = server.finish();
            let context = format!("SIG{signal} during {stage}: {stderr:?}");
            assert_eq!(code, Some(status), "{context}");
            // No stopped-listener document, and no listening announcement, ever.
            assert!(stdout.is_empty(), "{context}: {stdout}");
            assert!(
                !stderr
                    .iter()
                    .any(|line| line.contains("MCP transport listening")),
                "{context}"
            );
            let refusals = refusals(&stderr);
            assert_eq!(refusals.len(), 1, "{context}");
            let cancelled = &refusals[0];
            assert_eq!(cancelled["code"], "cancelled", "{context}");
            assert_eq!(cancelled["data"]["signal"], format!("SIG{signal}"));
            assert_eq!(cancelled["stage"], "environment-serve");
            assert!(
                cancelled["message"].as_str().unwrap().contains(during),
                "{context}"
            );
            // The listener was never opened (or was closed with the command).
            assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
        }
    }
}

// contract: LIMITS-020, LIMITS-021
#[test]
fn a_listener_that_fails_after_binding_is_logged_and_ends_with_resource_constraint() {
    // With at most 64 open files the process runs out of descriptors while it accepts the
    // connections below: accept fails with EMFILE, which is the listener's failure, not one
    // connection's.
    let mut command = Command::new("sh");
    command.args(["-c", r#"ulimit -n 64 && exec "$0" "$@""#]);
    command
        .arg(binary())
        .arg("environment-serve")
        .args(replay_args());
    let mut server = Server::spawn(command, &[]);
    let url = server.url();
    let address = address(&url);
    let mut held = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while matches!(server.child.try_wait(), Ok(None)) {
        assert!(Instant::now() < deadline, "the server kept running");
        if held.len() < 400 {
            // Connections queue in the listen backlog even when accept fails.
            if let Ok(stream) = std::net::TcpStream::connect(&address) {
                held.push(stream);
            }
        } else {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let (code, stdout, stderr) = server.finish();
    drop(held);
    assert_eq!(code, Some(1), "{stderr:?}");
    assert!(stdout.is_empty(), "no stopped document: {stdout}");
    let logged = stderr
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| line["level"] == "error" && line["msg"] == "the listener failed")
        .unwrap_or_else(|| panic!("the failure is logged: {stderr:?}"));
    assert!(
        logged["error"].as_str().unwrap().contains("accept"),
        "{logged}"
    );
    let refusals = refusals(&stderr);
    assert_eq!(refusals.len(), 1, "{stderr:?}");
    assert_eq!(refusals[0]["code"], "resource_constraint");
    assert_eq!(refusals[0]["stage"], "environment-serve");
}

/// The URL `rea mcp --http` announces under these flags and environment, or its refusal.
fn self_mcp_listens(flags: &[&str], env: &[(&str, &str)]) -> Result<String, Value> {
    let mut command = Command::new(binary());
    command.args(["mcp", "--http"]).args(flags);
    let server = Server::spawn(command, env);
    listens(server)
}

/// The URL `rea environment-serve` announces under these flags and environment, or its refusal.
fn environment_listens(flags: &[&str], env: &[(&str, &str)]) -> Result<String, Value> {
    listens(Server::start(
        &[replay_args(), flags.to_vec()].concat(),
        env,
    ))
}

fn listens(mut server: Server) -> Result<String, Value> {
    let line = server.wait_for_line(|line| {
        line["msg"] == "MCP transport listening" || line.get("code").is_some()
    });
    if line.get("code").is_some() {
        let (code, _, _) = server.finish();
        assert_eq!(code, Some(2), "{line}");
        // The command names its own stage; the rest of the refusal must agree.
        let mut refusal = line;
        refusal.as_object_mut().unwrap().remove("stage");
        return Err(refusal);
    }
    server.signal("TERM");
    server.finish();
    Ok(line["url"].as_str().unwrap().to_owned())
}

/// Environment variables of one run.
type Environment<'a> = Vec<(&'a str, &'a str)>;

// contract: SERVE-006
#[test]
fn host_and_port_resolve_exactly_as_rea_mcp_http_resolves_them() {
    let port = free_port().to_string();
    let other = free_port().to_string();
    let cases: Vec<(Vec<&str>, Environment)> = vec![
        (vec![], vec![("MCP_HOST", "127.0.0.1"), ("MCP_PORT", &port)]),
        (vec!["--port", &port], vec![("MCP_PORT", &other)]),
        (
            vec!["--host", "127.0.0.1", "--port", &port],
            vec![("MCP_HOST", "localhost"), ("MCP_PORT", &other)],
        ),
        (vec![], vec![("MCP_HOST", " "), ("MCP_PORT", &port)]),
        (vec![], vec![("MCP_PORT", "not-a-port")]),
        (vec![], vec![("MCP_PORT", "65536")]),
        (vec!["--host", ""], vec![]),
        (vec![], vec![("MCP_HOST", "0.0.0.0"), ("MCP_PORT", &port)]),
        (vec![], vec![("MCP_ALLOWED_HOSTS", "a b")]),
    ];
    for (flags, env) in &cases {
        let served = environment_listens(flags, env);
        let own = self_mcp_listens(flags, env);
        assert_eq!(served, own, "{flags:?} {env:?}");
    }
    // The defaults: 127.0.0.1 and an ephemeral port (a different one each time).
    let served = environment_listens(&[], &[]).unwrap();
    let own = self_mcp_listens(&[], &[]).unwrap();
    for url in [&served, &own] {
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        assert!(!url.ends_with(":0/mcp"), "{url}");
    }
}

/// The system calls traced: process creation, everything that could write to disk, and
/// outbound connections.
const TRACED: &str = "trace=execve,execveat,fork,vfork,clone,clone3,open,openat,openat2,creat,\
mkdir,mkdirat,unlink,unlinkat,rmdir,rename,renameat,renameat2,link,linkat,symlink,symlinkat,\
truncate,ftruncate,chmod,fchmodat,connect,sendto,sendmsg";

/// One JSON-RPC call to `/agentenv` over loopback.
fn data_call(address: &str, method: &str, params: Option<Value>) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "id": 1, "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    let (status, body) = request(
        address,
        "POST",
        "/agentenv",
        &[],
        Some(&message.to_string()),
    );
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

#[test]
fn the_server_reads_each_input_once_launches_nothing_writes_nothing_and_connects_only_to_download()
{
    rea_tests::require_strace();
    let folder = tempfile::tempdir().unwrap();
    let trace = folder.path().join("trace.txt");
    let loaded = folder.path().join("loaded state.json");
    // The download's origin: a loopback listener, so data/add may reach it only when
    // REA_DATA_ADD_ALLOW names it (with the folder the file part reads from).
    let origin = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin_port = origin.local_addr().unwrap().port();
    // The state served, so the data plane (and its file and download parts) is there too.
    let mut command = Command::new("strace");
    command
        .args(["-f", "-qq", "-s", "256", "-o"])
        .arg(&trace)
        .args(["-e", TRACED])
        .arg(binary())
        .args([
            "environment-serve",
            "json-server.manifest.json",
            "--evidence",
            "json-server.capture.json",
        ]);
    for proxy in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        command.env_remove(proxy);
    }
    command.env(
        "REA_DATA_ADD_ALLOW",
        format!(
            "file:{},https://127.0.0.1:{origin_port}",
            folder.path().display()
        ),
    );
    let mut server = Server::spawn(command, &[]);
    let url = server.url();
    let address = address(&url);
    let card = card(&url);
    assert_eq!(
        card["capabilities"]["operations"],
        json!(["data/reset", "data/add", "data/get"]),
        "the state is served"
    );
    // Discovery, every tool called, the data plane.
    let tools = support::process::tools_list(&url);
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let required = tool["inputSchema"]["required"].as_array().unwrap();
        let arguments: serde_json::Map<String, Value> = required
            .iter()
            .map(|name| (name.as_str().unwrap().to_owned(), json!("1")))
            .collect();
        support::process::call_tool(&url, name, &Value::Object(arguments));
    }
    let got = data_call(&address, "data/get", None);
    let document = got["result"]["parts"][0]["data"].clone();
    assert!(document.is_object(), "{got}");
    assert_eq!(data_call(&address, "data/reset", None)["result"], json!({}));
    // A file part: read once.
    std::fs::write(&loaded, document.to_string()).unwrap();
    let uri = format!(
        "file://{}",
        loaded.display().to_string().replace(' ', "%20")
    );
    let added = data_call(
        &address,
        "data/add",
        Some(json!({"parts": [{"kind": "file", "file": {"uri": uri}}]})),
    );
    assert_eq!(added["result"], json!({}), "{added}");
    // A download: one connection to the named host (a loopback listener that hangs up, so the
    // TLS handshake fails), never retried.
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    {
        let accepted = accepted.clone();
        std::thread::spawn(move || {
            for stream in origin.incoming() {
                accepted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                drop(stream);
            }
        });
    }
    let downloaded = data_call(
        &address,
        "data/add",
        Some(
            json!({"parts": [{"kind": "file", "file": {"uri": format!("https://127.0.0.1:{origin_port}/state.json")}}]}),
        ),
    );
    assert_eq!(
        downloaded["error"]["data"]["reason"], "network",
        "{downloaded}"
    );
    support::process::signal_process(server.only_child(), "TERM");
    let (code, _, stderr) = server.finish();
    assert_eq!(code, Some(143), "{stderr:?}");
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1);

    let lines: Vec<String> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let calls = |name: &str| rea_tests::strace_calls(&lines, name);
    // contract: LIMITS-015 (one program image (the server's own), and every clone is a thread)
    assert_eq!(calls("execve").len(), 1, "{lines:#?}");
    assert!(calls("execveat").is_empty() && calls("fork").is_empty() && calls("vfork").is_empty());
    for clone in calls("clone").into_iter().chain(calls("clone3")) {
        assert!(
            clone.contains("CLONE_THREAD"),
            "a process was launched: {clone}"
        );
    }
    // contract: LIMITS-016 (nothing opened for writing, created, removed, renamed or truncated)
    for name in ["open", "openat", "openat2"] {
        for open in calls(name) {
            assert!(
                !["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"]
                    .iter()
                    .any(|flag| open.contains(flag)),
                "written: {open}"
            );
        }
    }
    for name in [
        "creat",
        "mkdir",
        "mkdirat",
        "unlink",
        "unlinkat",
        "rmdir",
        "rename",
        "renameat",
        "renameat2",
        "link",
        "linkat",
        "symlink",
        "symlinkat",
        "truncate",
        "ftruncate",
        "chmod",
        "fchmodat",
    ] {
        assert!(calls(name).is_empty(), "{name}: {:?}", calls(name));
    }
    // contract: LIMITS-001, LIMITS-007 (each input opened once; the state derives from the
    // capture already read)
    let opened = |path: &str| {
        ["open", "openat", "openat2"]
            .iter()
            .flat_map(|name| calls(name))
            .filter(|line| line.contains(&format!("\"{path}\"")))
            .count()
    };
    assert_eq!(opened("json-server.manifest.json"), 1);
    assert_eq!(opened("json-server.capture.json"), 1);
    // contract: LIMITS-019 (the file part read once)
    assert_eq!(opened(&loaded.display().to_string()), 1, "{lines:#?}");
    // contract: LIMITS-017, LIMITS-018 (the download's one connection is the only one)
    let connects = calls("connect");
    assert_eq!(connects.len(), 1, "{connects:#?}");
    assert!(
        connects[0].contains(&format!("sin_port=htons({origin_port})"))
            && connects[0].contains("127.0.0.1"),
        "{}",
        connects[0]
    );
    for send in calls("sendto").into_iter().chain(calls("sendmsg")) {
        assert!(
            !send.contains("sin_addr") && !send.contains("sin6_addr"),
            "a datagram left: {send}"
        );
    }
    // The inputs are where they were, unchanged.
    assert_eq!(
        input_json("json-server.capture.json")["evidence_id"]
            .as_str()
            .map(|id| id.starts_with("ev_")),
        Some(true)
    );
    let _ = inputs();
}

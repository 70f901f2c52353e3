//! `rea environment-serve` as a process: the listening line, the environment variables, the
//! refusals before binding, signals and the stopped document. Inputs are the shared json-server
//! and kinto captures, inspected and projected with the `rea` binary itself. Servers bind
//! 127.0.0.1 only.

#[path = "serve_support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rea_tests::{run_rea, shared_dir};
use serde_json::{Value, json};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

struct Inputs {
    dir: PathBuf,
}

/// `<name>.capture.json` and `<name>.manifest.json` for json-server and kinto.
fn inputs() -> &'static Inputs {
    static INPUTS: OnceLock<Inputs> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve_command");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["json-server", "kinto"] {
            let har = shared_dir().join("captures").join(name).join("build.har");
            let har = har.to_str().unwrap().to_owned();
            let capture = run_rea(
                &binary(),
                &dir,
                &["inspect-web-network-capture", &har, "har"],
            );
            assert_eq!(capture.code, Some(0), "{}", capture.stderr);
            std::fs::write(dir.join(format!("{name}.capture.json")), &capture.stdout).unwrap();
            let view = json!({
                "source": {"kind": "evidence-file", "path": format!("{name}.capture.json")},
                "view": {"kind": "environment-manifest", "template_rules": []}
            });
            std::fs::write(dir.join(format!("{name}.view.json")), view.to_string()).unwrap();
            let view_path = format!("{name}.view.json");
            let manifest = run_rea(&binary(), &dir, &["inspect-analysis-view", &view_path]);
            assert_eq!(manifest.code, Some(0), "{}", manifest.stderr);
            std::fs::write(dir.join(format!("{name}.manifest.json")), &manifest.stdout).unwrap();
        }
        Inputs { dir }
    })
}

/// A running server process.
struct Server {
    child: Child,
    /// Stderr lines so far.
    lines: mpsc::Receiver<String>,
    stderr: Vec<String>,
}

impl Server {
    /// Starts `rea environment-serve` in the inputs folder with these arguments and environment
    /// (`REA_LOG_LEVEL`, `MCP_*` and `ENVIRONMENT_NAME` are cleared first).
    fn start(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(binary());
        command
            .arg("environment-serve")
            .args(args)
            .current_dir(&inputs().dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for name in [
            "REA_LOG_LEVEL",
            "MCP_HOST",
            "MCP_PORT",
            "MCP_ALLOWED_HOSTS",
            "ENVIRONMENT_NAME",
        ] {
            command.env_remove(name);
        }
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("spawn rea");
        let stderr = child.stderr.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            lines,
            stderr: Vec::new(),
        }
    }

    /// Waits for the listening line and returns its URL.
    fn url(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.stderr.push(line.clone());
                    if let Ok(value) = serde_json::from_str::<Value>(&line)
                        && value["msg"] == "MCP transport listening"
                    {
                        return value["url"].as_str().unwrap().to_owned();
                    }
                }
                Err(_) => panic!("no listening line; stderr: {:?}", self.stderr),
            }
        }
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the process (at most 20 s); returns the exit code, stdout and every stderr line.
    fn finish(mut self) -> (Option<i32>, String, Vec<String>) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not stop");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stdout = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(500)) {
            self.stderr.push(line);
        }
        (status.code(), stdout, std::mem::take(&mut self.stderr))
    }
}

impl Drop for Server {
    /// A test that fails before stopping its server must not leave it running.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn address(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

fn card(url: &str) -> Value {
    let address = address(url);
    let (status, body) = support::http(
        &address,
        "GET",
        "/.well-known/agent-env.json",
        &address,
        None,
    );
    assert_eq!(status, 200);
    serde_json::from_str(&body).unwrap()
}

fn replay_args() -> Vec<&'static str> {
    vec![
        "json-server.manifest.json",
        "--evidence",
        "json-server.capture.json",
        "--replay-only",
    ]
}

fn manifest_name(name: &str) -> String {
    let text = std::fs::read_to_string(inputs().dir.join(format!("{name}.manifest.json"))).unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    manifest["name"].as_str().unwrap().to_owned()
}

// contract: SERVE-001, SERVE-003, SERVE-004, SERVE-005, SERVE-007, SERVE-010, SERVE-014, SERVE-015,
// contract: SERVE-016, SERVE-017, SERVE-026, SERVE-028, CARD-002
#[test]
fn serves_replay_until_sigterm_and_reports_the_stop() {
    let mut server = Server::start(&replay_args(), &[]);
    let url = server.url();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let address = address(&url);
    assert_ne!(address, "127.0.0.1:0");

    let card = card(&url);
    assert_eq!(card["name"], manifest_name("json-server"));
    assert_eq!(card["capabilities"]["operations"], json!([]));
    let (status, body) = support::http(
        &address,
        "POST",
        "/agentenv",
        &address,
        Some(r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#),
    );
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["message"],
        "method not found: data/get"
    );

    server.signal("TERM");
    let (code, stdout, stderr) = server.finish();
    assert_eq!(code, Some(143));
    let stopped: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(stopped["status"], "stopped");
    assert_eq!(stopped["signal"], "SIGTERM");
    assert_eq!(stopped["url"], url.as_str());
    assert_eq!(stopped["name"], card["name"]);
    assert_eq!(
        stopped["tool_count"],
        card["capabilities"]["tools"].as_array().unwrap().len()
    );
    assert_eq!(
        stopped["state"],
        json!({"served": false, "reason": "replay-only"})
    );
    let listening: Vec<&String> = stderr
        .iter()
        .filter(|line| line.contains("MCP transport listening"))
        .collect();
    assert_eq!(listening.len(), 1, "{stderr:?}");
    // The listener is closed.
    assert!(std::net::TcpStream::connect(&address).is_err());
}

// contract: SERVE-017
#[test]
fn sigint_exits_130() {
    let mut server = Server::start(&replay_args(), &[]);
    server.url();
    server.signal("INT");
    let (code, stdout, _) = server.finish();
    assert_eq!(code, Some(130));
    let stopped: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(stopped["signal"], "SIGINT");
}

// contract: SERVE-004, SERVE-005, SERVE-009, CARD-002
#[test]
fn the_environment_names_the_port_host_and_environment() {
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let port_text = port.to_string();
    let mut server = Server::start(
        &replay_args(),
        &[
            ("MCP_HOST", "127.0.0.1"),
            ("MCP_PORT", &port_text),
            ("ENVIRONMENT_NAME", "renamed-env"),
        ],
    );
    let url = server.url();
    assert_eq!(url, format!("http://127.0.0.1:{port}/mcp"));
    assert_eq!(card(&url)["name"], "renamed-env");
    // The flags win over the environment.
    server.signal("TERM");
    let (_, stdout, _) = server.finish();
    assert_eq!(
        serde_json::from_str::<Value>(&stdout).unwrap()["name"],
        "renamed-env"
    );

    let mut flagged = Server::start(
        &[replay_args(), vec!["--host", "127.0.0.1", "--port", "0"]].concat(),
        &[("MCP_PORT", &port_text), ("MCP_HOST", "localhost")],
    );
    let url = flagged.url();
    assert!(
        url.starts_with("http://127.0.0.1:") && !url.ends_with(&format!(":{port}/mcp")),
        "{url}"
    );
    flagged.signal("TERM");
    flagged.finish();
}

/// Runs the command expecting a refusal before any listening line.
fn refused(args: &[&str], env: &[(&str, &str)]) -> (i32, Value) {
    let server = Server::start(args, env);
    let (code, stdout, stderr) = server.finish();
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        !stderr
            .iter()
            .any(|line| line.contains("MCP transport listening")),
        "{stderr:?}"
    );
    let refusal = stderr
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|value| value.get("code").is_some())
        .unwrap_or_else(|| panic!("no refusal in {stderr:?}"));
    (code.unwrap(), refusal)
}

// contract: SERVE-011
#[test]
fn a_blank_environment_name_is_refused_before_binding() {
    let (code, refusal) = refused(&replay_args(), &[("ENVIRONMENT_NAME", " ")]);
    assert_eq!(code, 2);
    assert_eq!(refusal["code"], "configuration_invalid");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("ENVIRONMENT_NAME")
    );
}

// contract: EXPORT-049
#[test]
fn binding_outside_loopback_needs_an_allowlist() {
    for env in [vec![("MCP_HOST", "0.0.0.0")], vec![("MCP_HOST", "::")]] {
        let (code, refusal) = refused(&replay_args(), &env);
        assert_eq!(code, 2);
        assert_eq!(refusal["code"], "configuration_invalid");
        assert!(
            refusal["message"]
                .as_str()
                .unwrap()
                .contains("MCP_ALLOWED_HOSTS"),
            "{refusal}"
        );
    }
    let (code, refusal) = refused(&[replay_args(), vec!["--host", "0.0.0.0"]].concat(), &[]);
    assert_eq!(
        (code, refusal["code"].as_str()),
        (2, Some("configuration_invalid"))
    );
}

// contract: SERVE-008
#[test]
fn rea_log_level_sets_the_level() {
    let (code, refusal) = refused(&replay_args(), &[("REA_LOG_LEVEL", "loud")]);
    assert_eq!(
        (code, refusal["code"].as_str()),
        (2, Some("configuration_invalid"))
    );

    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let port_text = port.to_string();
    let server = Server::start(
        &[replay_args(), vec!["--port", &port_text]].concat(),
        &[("REA_LOG_LEVEL", "warn")],
    );
    let address = format!("127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(&address).is_err() {
        assert!(Instant::now() < deadline, "the server did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    server.signal("TERM");
    let (code, _, stderr) = server.finish();
    assert_eq!(code, Some(143));
    assert!(
        stderr.is_empty(),
        "at warn, the info listening line is not written: {stderr:?}"
    );
}

// contract: LIMITS-002, LIMITS-003, LIMITS-004, LIMITS-005, LIMITS-006
#[test]
fn inputs_are_authenticated_before_binding() {
    // A manifest of another capture: invalid_request naming both ids.
    let (code, refusal) = refused(
        &[
            "json-server.manifest.json",
            "--evidence",
            "kinto.capture.json",
            "--replay-only",
        ],
        &[],
    );
    assert_eq!(code, 1);
    assert_eq!(refusal["code"], "invalid_request");
    let capture = |name: &str| -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(inputs().dir.join(format!("{name}.capture.json"))).unwrap(),
        )
        .unwrap()
    };
    let message = refusal["message"].as_str().unwrap();
    assert!(
        message.contains(capture("json-server")["evidence_id"].as_str().unwrap()),
        "{message}"
    );
    assert!(
        message.contains(capture("kinto")["evidence_id"].as_str().unwrap()),
        "{message}"
    );

    // Not Evidence at all.
    std::fs::write(inputs().dir.join("not-evidence.json"), "{\"hello\": 1}").unwrap();
    let (code, refusal) = refused(
        &[
            "not-evidence.json",
            "--evidence",
            "json-server.capture.json",
            "--replay-only",
        ],
        &[],
    );
    assert_eq!(
        (code, refusal["code"].as_str()),
        (1, Some("invalid_request")),
        "{refusal}"
    );

    // A capture given as the manifest, and a manifest given as the capture.
    let (code, _) = refused(
        &[
            "json-server.capture.json",
            "--evidence",
            "json-server.capture.json",
            "--replay-only",
        ],
        &[],
    );
    assert_eq!(code, 1);
    let (code, _) = refused(
        &[
            "json-server.manifest.json",
            "--evidence",
            "json-server.manifest.json",
            "--replay-only",
        ],
        &[],
    );
    assert_eq!(code, 1);
}

// contract: SERVE-002, SERVE-003, SERVE-016, CARD-059
#[test]
fn without_replay_only_the_stopped_document_says_whether_the_state_was_served() {
    let mut server = Server::start(
        &[
            "json-server.manifest.json",
            "--evidence",
            "json-server.capture.json",
        ],
        &[],
    );
    let url = server.url();
    let operations = card(&url)["capabilities"]["operations"].clone();
    server.signal("TERM");
    let (code, stdout, stderr) = server.finish();
    assert_eq!(code, Some(143));
    let stopped: Value = serde_json::from_str(&stdout).unwrap();
    let state = &stopped["state"];
    if state["served"] == true {
        assert!(
            state["evidence_id"].as_str().unwrap().starts_with("ev_"),
            "{state}"
        );
        assert_eq!(operations, json!(["data/reset", "data/add", "data/get"]));
    } else {
        // Unavailable: replay is served, and a warning naming the code came before binding.
        assert_eq!(state["reason"], "unavailable", "{state}");
        assert_eq!(operations, json!([]));
        let code = state["code"].as_str().unwrap();
        let warning = stderr
            .iter()
            .position(|line| line.contains("\"level\":\"warn\"") && line.contains(code))
            .expect("a warning");
        let listening = stderr
            .iter()
            .position(|line| line.contains("MCP transport listening"))
            .unwrap();
        assert!(warning < listening);
    }
}

// contract: SERVE-013
#[test]
fn requests_naming_another_host_are_refused_over_the_socket() {
    let mut server = Server::start(&replay_args(), &[]);
    let url = server.url();
    let address = address(&url);
    let (status, _) = support::http(
        &address,
        "GET",
        "/.well-known/agent-env.json",
        "rebound.example",
        None,
    );
    assert_eq!(status, 403);
    let port = address.rsplit(':').next().unwrap();
    let (status, _) = support::http(
        &address,
        "GET",
        "/ready",
        &format!("localhost:{port}"),
        None,
    );
    assert_eq!(status, 200);
    server.signal("TERM");
    server.finish();
}

/// A HAR of one endpoint recorded `records` times with 100 distinct query fields each.
fn wide_har(records: usize) -> String {
    let entries: Vec<Value> = (0..records)
        .map(|record| {
            let names: Vec<String> = (0..100).map(|i| format!("filter_field_{:05}", record * 100 + i)).collect();
            let query: Vec<String> = names.iter().map(|n| format!("{n}=v")).collect();
            let body = json!({"items": [{"id": record}], "total": 1}).to_string();
            json!({
                "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
                "request": {"method": "GET", "url": format!("http://127.0.0.1:8080/api/search?{}", query.join("&")),
                            "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                            "queryString": names.iter().map(|n| json!({"name": n, "value": "v"})).collect::<Vec<_>>(),
                            "headersSize": -1, "bodySize": 0},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                             "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
                             "content": {"size": body.len(), "mimeType": "application/json", "text": body},
                             "redirectURL": "", "headersSize": -1, "bodySize": body.len()},
                "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
            })
        })
        .collect();
    json!({"log": {"version": "1.2", "creator": {"name": "rea-tests", "version": "1"}, "entries": entries}}).to_string()
}

/// Inspects and projects a HAR written into the inputs folder under `name`.
fn project_har(name: &str, har: &str) {
    let dir = &inputs().dir;
    std::fs::write(dir.join(format!("{name}.har")), har).unwrap();
    let capture = run_rea(
        &binary(),
        dir,
        &["inspect-web-network-capture", &format!("{name}.har"), "har"],
    );
    assert_eq!(capture.code, Some(0), "{}", capture.stderr);
    std::fs::write(dir.join(format!("{name}.capture.json")), &capture.stdout).unwrap();
    let view = json!({
        "source": {"kind": "evidence-file", "path": format!("{name}.capture.json")},
        "view": {"kind": "environment-manifest", "template_rules": []}
    });
    std::fs::write(dir.join(format!("{name}.view.json")), view.to_string()).unwrap();
    let manifest = run_rea(
        &binary(),
        dir,
        &["inspect-analysis-view", &format!("{name}.view.json")],
    );
    assert_eq!(manifest.code, Some(0), "{}", manifest.stderr);
    std::fs::write(dir.join(format!("{name}.manifest.json")), &manifest.stdout).unwrap();
}

// contract: CARD-030, LIMITS-002
#[test]
fn the_discovery_reservation_admits_1500_fields_and_refuses_a_larger_catalog_before_binding() {
    project_har("wide-1500", &wide_har(15));
    let mut server = Server::start(
        &[
            "wide-1500.manifest.json",
            "--evidence",
            "wide-1500.capture.json",
            "--replay-only",
        ],
        &[],
    );
    let url = server.url();
    let fields: usize = card(&url)["capabilities"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["inputSchema"]["properties"].as_object().unwrap().len())
        .sum();
    assert_eq!(fields, 1500);
    server.signal("TERM");
    assert_eq!(server.finish().0, Some(143));

    project_har("wide-20000", &wide_har(200));
    let (code, refusal) = refused(
        &[
            "wide-20000.manifest.json",
            "--evidence",
            "wide-20000.capture.json",
            "--replay-only",
        ],
        &[],
    );
    assert_eq!(code, 1);
    assert_eq!(refusal["code"], "resource_constraint", "{refusal}");
}

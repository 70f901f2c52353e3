//! `rea environment-serve` served from the state, as a process: the card in state mode, the data
//! plane over the socket, the stopped document's `state` member, `--replay-only`, and the
//! unavailable state falling back to replay.

mod state_support;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rea_evidence::Evidence;
use rea_manifest::evidence::project_manifest_evidence;
use rea_plugin_api::json::Json;
use rea_state::project_state_evidence;
use serde_json::{Value, json};
use state_support::{capture, rules};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

struct Inputs {
    folder: tempfile::TempDir,
    state_id: String,
}

/// `capture.json`, `manifest.json` and a manifest sealed from an edited copy (`renamed.json`,
/// whose capture projects another manifest).
fn inputs() -> Inputs {
    let folder = tempfile::tempdir().expect("temp");
    let capture = capture("json-server/build.har");
    let (_, manifest) = project_manifest_evidence(&capture, &rules()).expect("manifest");
    let state =
        project_state_evidence(&capture, &rules(), &state_support::state_rules()).expect("state");
    std::fs::write(
        folder.path().join("capture.json"),
        capture.to_canonical_vec(),
    )
    .expect("write");
    std::fs::write(
        folder.path().join("manifest.json"),
        manifest.to_canonical_vec(),
    )
    .expect("write");
    let mut body = manifest.body().clone();
    body.insert("name", Json::String("renamed".into()));
    let renamed = Evidence::seal(manifest.operation(), body);
    std::fs::write(
        folder.path().join("renamed.json"),
        renamed.to_canonical_vec(),
    )
    .expect("write");
    Inputs {
        folder,
        state_id: state.evidence.id().to_owned(),
    }
}

struct Server {
    child: Child,
    lines: mpsc::Receiver<String>,
    stderr: Vec<String>,
}

impl Drop for Server {
    /// A test that fails before `stop` leaves no server running.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Server {
    fn start(dir: &Path, args: &[&str]) -> Self {
        let mut command = Command::new(binary());
        command
            .arg("environment-serve")
            .args(args)
            .args(["--port", "0"])
            .current_dir(dir)
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
        let mut child = command.spawn().expect("spawn rea");
        let stderr = child.stderr.take().expect("stderr");
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

    fn address(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.stderr.push(line.clone());
                    if let Ok(value) = serde_json::from_str::<Value>(&line)
                        && value["msg"] == "MCP transport listening"
                    {
                        let url = value["url"].as_str().expect("url");
                        return url
                            .trim_start_matches("http://")
                            .split('/')
                            .next()
                            .expect("authority")
                            .to_owned();
                    }
                }
                Err(_) => panic!("no listening line; stderr: {:?}", self.stderr),
            }
        }
    }

    fn stop(mut self) -> (Option<i32>, Value, Vec<String>) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            assert!(Instant::now() < deadline, "the server did not stop");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stdout = String::new();
        self.child
            .stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut stdout)
            .expect("read");
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(300)) {
            self.stderr.push(line);
        }
        (
            status.code(),
            serde_json::from_str(&stdout).unwrap_or(Value::Null),
            std::mem::take(&mut self.stderr),
        )
    }
}

/// One HTTP/1.1 request over loopback; returns the status and the JSON body.
fn http(address: &str, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let body = body.unwrap_or("");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("read");
    let text = String::from_utf8_lossy(&response);
    let (head, rest) = text.split_once("\r\n\r\n").expect("a response");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("status");
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let payload = if chunked {
        let mut out = String::new();
        let mut rest = rest;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if size == 0 {
                break;
            }
            out.push_str(&after[..size]);
            rest = &after[size + 2..];
        }
        out
    } else {
        rest.to_owned()
    };
    (
        status,
        serde_json::from_str(&payload).unwrap_or(Value::Null),
    )
}

#[test]
fn environment_serve_serves_from_the_state_by_default() {
    // contract: STATE-001, STATE-012, STATE-014, STATE-017, STATE-027, DATA-079, DATA-080, DATA-081, DATA-082
    let inputs = inputs();
    let mut server = Server::start(
        inputs.folder.path(),
        &["manifest.json", "--evidence", "capture.json"],
    );
    let address = server.address();
    let (status, card) = http(&address, "GET", "/.well-known/agent-env.json", None);
    assert_eq!(status, 200);
    assert_eq!(
        card["capabilities"]["operations"],
        json!(["data/reset", "data/add", "data/get"])
    );
    assert_eq!(
        card["capabilities"]["extensions"],
        rea_state::backend::intake_extension()
    );
    let tools = card["capabilities"]["tools"].as_array().expect("tools");
    // contract: STATE-106, WRITE-001
    // Read tools answer from the state; the write tools whose plan is served apply their effect;
    // the withheld ones (the cascading delete) are not in the catalog.
    for tool in tools {
        let name = tool["name"].as_str().expect("name");
        let description = tool["description"].as_str().expect("description");
        if name.starts_with("get_") {
            assert!(
                description.contains("answers from the environment state"),
                "{name}"
            );
        } else {
            assert!(
                description.contains("served from the environment state"),
                "{name}"
            );
        }
    }
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(names.contains(&"post_posts"), "{names:?}");
    assert!(!names.contains(&"delete_posts_by_id"), "{names:?}");
    let (status, reply) = http(
        &address,
        "POST",
        "/agentenv",
        Some(r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#),
    );
    assert_eq!(status, 200);
    assert_eq!(
        reply["result"]["parts"][0]["data"]["rea_state"]["state_evidence_id"],
        inputs.state_id.as_str()
    );
    let (_, reply) = http(
        &address,
        "POST",
        "/agentenv",
        Some(r#"{"jsonrpc":"2.0","id":2,"method":"data/reset"}"#),
    );
    assert_eq!(reply["result"], json!({}));
    let (code, stopped, _) = server.stop();
    assert_eq!(code, Some(143));
    assert_eq!(
        stopped["state"],
        json!({"served": true, "evidence_id": inputs.state_id})
    );
}

#[test]
fn replay_only_derives_nothing() {
    // contract: STATE-011, STATE-025, STATE-026, STATE-028
    let inputs = inputs();
    let mut server = Server::start(
        inputs.folder.path(),
        &[
            "manifest.json",
            "--evidence",
            "capture.json",
            "--replay-only",
        ],
    );
    let address = server.address();
    let (_, card) = http(&address, "GET", "/.well-known/agent-env.json", None);
    assert_eq!(card["capabilities"]["operations"], json!([]));
    assert_eq!(card["capabilities"]["extensions"], Value::Null);
    let (_, reply) = http(
        &address,
        "POST",
        "/agentenv",
        Some(r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#),
    );
    assert_eq!(reply["error"]["code"], -32601);
    let (_, stopped, _) = server.stop();
    assert_eq!(
        stopped["state"],
        json!({"served": false, "reason": "replay-only"})
    );
}

#[test]
fn an_unavailable_state_is_logged_and_replay_served() {
    // contract: STATE-016, STATE-018, STATE-019, STATE-029, STATE-030
    let inputs = inputs();
    // The renamed manifest cites the capture, but the capture projects another manifest: the
    // state derived with its rules would name other tools, so it is unavailable.
    let mut server = Server::start(
        inputs.folder.path(),
        &["renamed.json", "--evidence", "capture.json"],
    );
    let address = server.address();
    let (_, card) = http(&address, "GET", "/.well-known/agent-env.json", None);
    assert_eq!(card["capabilities"]["operations"], json!([]));
    let (_, stopped, stderr) = server.stop();
    assert_eq!(stopped["state"]["served"], false);
    assert_eq!(stopped["state"]["reason"], "unavailable");
    assert_eq!(stopped["state"]["code"], "invalid_request");
    let message = stopped["state"]["message"].as_str().expect("message");
    let warning = stderr
        .iter()
        .position(|line| {
            line.contains("\"level\":\"warn\"")
                && line.contains("invalid_request")
                && line.contains(&message[..40])
        })
        .unwrap_or_else(|| panic!("a warning naming the code and message: {stderr:?}"));
    let listening = stderr
        .iter()
        .position(|line| line.contains("MCP transport listening"))
        .expect("listening");
    assert!(warning < listening);
}

#[test]
fn environment_serve_takes_its_rule_stages_from_the_pipeline() {
    // The default pipeline serves json-server's create; a pipeline without the `sequence` rule
    // leaves its generated id unexplained, so the create is withheld and not in the catalog; an
    // invalid pipeline is a configuration error before anything binds.
    let inputs = inputs();
    let tool_names = |args: &[&str]| {
        let mut server = Server::start(inputs.folder.path(), args);
        let address = server.address();
        let (_, card) = http(&address, "GET", "/.well-known/agent-env.json", None);
        let _ = server.stop();
        card["capabilities"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect::<Vec<String>>()
    };
    let default = tool_names(&["manifest.json", "--evidence", "capture.json"]);
    assert!(default.contains(&"post_posts".to_owned()), "{default:?}");
    let without = rea_pipeline::DEFAULT_PIPELINE.replace("[[rules]]\nstage = \"sequence\"\n", "");
    assert_ne!(without, rea_pipeline::DEFAULT_PIPELINE);
    std::fs::write(inputs.folder.path().join("no-sequence.toml"), without).expect("pipeline");
    let reduced = tool_names(&[
        "manifest.json",
        "--evidence",
        "capture.json",
        "--pipeline",
        "no-sequence.toml",
    ]);
    assert!(!reduced.contains(&"post_posts".to_owned()), "{reduced:?}");
    assert!(
        reduced.contains(&"patch_posts_by_id".to_owned()),
        "{reduced:?}"
    );
    std::fs::write(
        inputs.folder.path().join("bad.toml"),
        "[[rules]]\nstage = \"no-such-rule\"\n",
    )
    .expect("pipeline");
    let run = rea_tests::run_rea(
        &binary(),
        inputs.folder.path(),
        &[
            "environment-serve",
            "manifest.json",
            "--evidence",
            "capture.json",
            "--pipeline",
            "bad.toml",
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("configuration_invalid"),
        "{}",
        run.stderr
    );
}

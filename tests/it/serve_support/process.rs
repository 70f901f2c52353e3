//! `rea environment-serve` (and `rea mcp --http`) as processes: inputs inspected and projected with
//! the binary itself, a running server with its stderr lines, signals, and HTTP/1.1 over loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rea_tests::{run_rea, shared_dir};
use serde_json::{Value, json};

/// The `rea` binary under test.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

/// The folder of one test binary's inputs.
pub struct Inputs {
    /// `<name>.capture.json`, `<name>.manifest.json` for json-server and kinto, and whatever the
    /// tests add.
    pub dir: PathBuf,
}

/// `<name>.capture.json` and `<name>.manifest.json` for json-server and kinto, in a folder of
/// this test binary's own (test binaries may run at the same time).
pub fn inputs() -> &'static Inputs {
    static INPUTS: OnceLock<Inputs> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let exe = std::env::current_exe().unwrap_or_default();
        let stem = exe
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_else(|| "serve".to_owned());
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(stem);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["json-server", "kinto"] {
            let har = shared_dir().join("captures").join(name).join("build.har");
            std::fs::copy(&har, dir.join(format!("{name}.har"))).unwrap();
            project(&dir, name);
        }
        Inputs { dir }
    })
}

/// Inspects `<dir>/<name>.har` and projects it with no opt-in rules: `<name>.capture.json`,
/// `<name>.view.json`, `<name>.manifest.json`.
pub fn project(dir: &Path, name: &str) {
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

/// Writes a HAR into the inputs folder under `name` and projects it (see [`project`]).
pub fn project_har(name: &str, har: &str) {
    let dir = &inputs().dir;
    std::fs::write(dir.join(format!("{name}.har")), har).unwrap();
    project(dir, name);
}

/// A JSON file of the inputs folder.
pub fn input_json(file: &str) -> Value {
    let text = std::fs::read_to_string(inputs().dir.join(file)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A running server process.
pub struct Server {
    /// The process.
    pub child: Child,
    /// Stderr lines so far.
    lines: mpsc::Receiver<String>,
    /// Stderr lines read so far.
    pub stderr: Vec<String>,
}

/// The variables the tests clear before setting their own.
const CLEARED: [&str; 6] = [
    "REA_LOG_LEVEL",
    "MCP_HOST",
    "MCP_PORT",
    "MCP_ALLOWED_HOSTS",
    "ENVIRONMENT_NAME",
    "REA_TEST_HOLD",
];

impl Server {
    /// Starts `rea environment-serve` in the inputs folder with these arguments and environment
    /// (`REA_LOG_LEVEL`, `MCP_*`, `ENVIRONMENT_NAME` and `REA_TEST_HOLD` are cleared first).
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(binary());
        command.arg("environment-serve").args(args);
        Self::spawn(command, env)
    }

    /// Serves the json-server inputs from the state on an ephemeral port, with this environment.
    pub fn json_server(env: &[(&str, &str)]) -> Self {
        let args = "json-server.manifest.json --evidence json-server.capture.json --port 0";
        Self::start(&args.split(' ').collect::<Vec<_>>(), env)
    }

    /// Starts a prepared command (its arguments set) in the inputs folder.
    pub fn spawn(command: Command, env: &[(&str, &str)]) -> Self {
        Self::spawn_in(command, &inputs().dir, env)
    }

    /// Starts `rea environment-serve` with these arguments, on an ephemeral port, in `dir`.
    pub fn start_in(dir: &Path, args: &[&str]) -> Self {
        let mut command = Command::new(binary());
        command
            .arg("environment-serve")
            .args(args)
            .args(["--port", "0"]);
        Self::spawn_in(command, dir, &[])
    }

    /// Starts a prepared command (its arguments set) in `dir`.
    pub fn spawn_in(mut command: Command, dir: &Path, env: &[(&str, &str)]) -> Self {
        command
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for name in CLEARED {
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

    /// Waits (at most 120 s) for a stderr line that is JSON and satisfies `wanted`.
    pub fn wait_for_line(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.stderr.push(line.clone());
                    if let Ok(value) = serde_json::from_str::<Value>(&line)
                        && wanted(&value)
                    {
                        return value;
                    }
                }
                Err(_) => panic!("no such line; stderr: {:?}", self.stderr),
            }
        }
    }

    /// Waits for the listening line and returns its URL.
    pub fn url(&mut self) -> String {
        let line = self.wait_for_line(|value| value["msg"] == "MCP transport listening");
        line["url"].as_str().unwrap().to_owned()
    }

    /// Sends a signal by name (`TERM`, `INT`, …).
    pub fn signal(&self, name: &str) {
        signal_process(self.child.id(), name);
    }

    /// The process's only child (the server, when the process is a wrapper such as `strace`).
    pub fn only_child(&self) -> u32 {
        let pid = self.child.id();
        let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .expect("the children of the process");
        let children: Vec<u32> = children
            .split_whitespace()
            .map(|child| child.parse().unwrap())
            .collect();
        assert_eq!(children.len(), 1, "{children:?}");
        children[0]
    }

    /// Waits for the process (at most 20 s); returns the exit code, stdout and every stderr line.
    pub fn finish(mut self) -> (Option<i32>, String, Vec<String>) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not stop; stderr: {:?}", self.stderr);
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

/// Sends a signal by name (`TERM`, `INT`, …) to a process.
pub fn signal_process(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// `host:port` of an MCP URL.
pub fn address(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// A free loopback port (bound and released).
pub fn free_port() -> u16 {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    probe.local_addr().unwrap().port()
}

/// One HTTP/1.1 request over loopback (`Connection: close`) with extra headers: the status and
/// the body (chunked bodies joined).
pub fn request(
    address: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let body = body.unwrap_or("");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").expect("a response");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let payload = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = String::new();
        let mut rest = rest;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if size == 0 || after.len() < size {
                break;
            }
            out.push_str(&after[..size]);
            rest = after[size..].strip_prefix("\r\n").unwrap_or(&after[size..]);
        }
        out
    } else {
        rest.to_owned()
    };
    (status, payload)
}

/// The card of a server.
pub fn card(url: &str) -> Value {
    let (status, body) = request(
        &address(url),
        "GET",
        "/.well-known/agent-env.json",
        &[],
        None,
    );
    assert_eq!(status, 200);
    serde_json::from_str(&body).unwrap()
}

/// One stateless MCP request at the 2026-07-28 revision over loopback; returns its one reply.
pub fn mcp(url: &str, id: u64, method: &str, mut params: Value) -> Value {
    params.as_object_mut().unwrap().insert(
        "_meta".to_owned(),
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "rea-tests", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }),
    );
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let name = params["name"].as_str().unwrap_or("").to_owned();
    let mut headers = vec![
        ("Mcp-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if method == "tools/call" {
        headers.push(("Mcp-Name", name.as_str()));
    }
    let (status, body) = request(
        &address(url),
        "POST",
        "/mcp",
        &headers,
        Some(&message.to_string()),
    );
    let messages = super::mcp_messages(body.as_bytes());
    assert_eq!(messages.len(), 1, "HTTP {status}: {body}");
    messages.into_iter().next().unwrap()
}

/// `tools/list` over loopback (every page).
pub fn tools_list(url: &str) -> Vec<Value> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for id in 1.. {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let reply = mcp(url, id, "tools/list", params);
        let result = &reply["result"];
        tools.extend(result["tools"].as_array().expect("tools").iter().cloned());
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    tools
}

/// A `tools/call` over loopback; returns the result (`structuredContent`, `_meta`, `isError`).
pub fn call_tool(url: &str, name: &str, arguments: &Value) -> Value {
    let reply = mcp(
        url,
        7,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    );
    reply
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("no result: {reply}"))
}

/// The JSON answer a tool result carries (its structured content, else its text).
pub fn answer_of(result: &Value) -> Value {
    if let Some(structured) = result.get("structuredContent") {
        return structured.clone();
    }
    let text = result["content"][0]["text"].as_str().expect("text content");
    serde_json::from_str(text).unwrap_or(Value::String(text.to_owned()))
}

//! Helpers of the self_mcp_* tests: the binary under test and a raw JSON-RPC stdio session.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// The `rea` binary under test.
pub fn rea() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

/// Parses JSON or fails the test showing the text.
pub fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("not JSON ({error}): {text}"))
}

/// One `rea mcp` process over stdio, spoken to in raw JSON-RPC lines.
pub struct StdioSession {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    /// The `initialize` response.
    pub init: Value,
}

impl StdioSession {
    pub fn start(env: &[(&str, &str)]) -> Self {
        Self::start_with(&[], env)
    }

    /// Starts `rea mcp` with extra arguments (such as `--plugin PATH`).
    pub fn start_with(args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::start_command(Command::new(rea()), args, env)
    }

    /// Starts `rea mcp` in `dir` (relative paths in tool arguments resolve there).
    pub fn start_in(dir: &Path) -> Self {
        let mut command = Command::new(rea());
        command.current_dir(dir);
        Self::start_command(command, &[], &[])
    }

    fn start_command(mut command: Command, args: &[&str], env: &[(&str, &str)]) -> Self {
        command
            .arg("mcp")
            .args(args)
            .env_remove("REA_MCP_TOOL_FAMILIES")
            .env("REA_LOG_LEVEL", "off")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("rea mcp starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut session = Self {
            child,
            stdin,
            stdout,
            next_id: 1,
            init: Value::Null,
        };
        let init = session.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "rea-tests", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "rea", "{init}");
        session.init = init;
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("open stdin");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    }

    /// Sends a request and returns its response (skipping notifications).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let read = self.stdout.read_line(&mut line).expect("read");
            assert!(
                read > 0,
                "the server closed stdout before answering {method}"
            );
            let message = json_of(&line);
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
        }
    }

    /// Calls a tool; returns `(structuredContent, or the text content parsed, isError)`.
    pub fn call(&mut self, tool: &str, arguments: Value) -> (Value, bool) {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = response
            .get("result")
            .unwrap_or_else(|| panic!("{tool} failed: {response}"));
        let content = match &result["structuredContent"] {
            Value::Null => result["content"][0]["text"]
                .as_str()
                .and_then(|text| serde_json::from_str(text).ok())
                .unwrap_or(Value::Null),
            structured => structured.clone(),
        };
        (content, result["isError"].as_bool().unwrap_or(false))
    }

    pub fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().expect("exit").code()
    }
}

//! The in-process test client: `rea mcp`'s server over a pair of byte pipes, spoken to in raw
//! JSON-RPC lines, as a stdio client would.

use rea_self_mcp::SelfMcpServer;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio_util::sync::CancellationToken;

pub struct Client {
    pub writer: DuplexStream,
    pub lines: Lines<BufReader<DuplexStream>>,
    pub next_id: u64,
    /// Notifications received while waiting for a response.
    pub notifications: Vec<String>,
}

impl Client {
    pub async fn send(&mut self, message: Value) {
        let mut text = message.to_string();
        text.push('\n');
        self.writer.write_all(text.as_bytes()).await.expect("write");
    }

    pub async fn next_message(&mut self) -> Value {
        let line = tokio::time::timeout(std::time::Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("a message within 10 s")
            .expect("read")
            .expect("open stream");
        serde_json::from_str(&line).expect("JSON")
    }

    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.next_message().await;
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            if let Some(method) = message.get("method").and_then(Value::as_str) {
                self.notifications.push(method.to_owned());
            }
        }
    }
}

/// Starts a session of `server` and initializes it.
pub async fn start(
    server: &SelfMcpServer,
) -> (Client, CancellationToken, tokio::task::JoinHandle<()>) {
    // The client writes requests into one pipe and reads replies from another.
    let (requests_writer, requests_reader) = tokio::io::duplex(1 << 20);
    let (replies_writer, replies_reader) = tokio::io::duplex(1 << 20);
    let cancel = CancellationToken::new();
    let serving = {
        let server = server.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let _ = server
                .serve_lines(requests_reader, replies_writer, cancel)
                .await;
        })
    };
    let mut client = Client {
        writer: requests_writer,
        lines: BufReader::new(replies_reader).lines(),
        next_id: 1,
        notifications: Vec::new(),
    };
    let init = client
        .request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}),
        )
        .await;
    assert_eq!(init["result"]["serverInfo"]["name"], "rea");
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    (client, cancel, serving)
}

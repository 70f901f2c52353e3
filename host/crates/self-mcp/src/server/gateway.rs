//! The params gateway: checks the params of `prompts/get`, `prompts/list`,
//! `completion/complete`, `tools/list` and `tools/call` requests before the SDK parses them.
//!
//! The SDK silently drops optional params it cannot parse (`{"cursor": 1}` reads as no params)
//! and answers other schema mismatches without field detail, so rea checks the raw message
//! first: a request whose params do not fit gets `-32602` with `data.issues` (each offending
//! field by JSON pointer) and never reaches the handler; every other message passes through
//! unchanged. The connection stays usable, so a corrected retry on it succeeds.
//!
//! Over stdio the gateway sits between the process's stdin/stdout and the SDK (an in-process
//! pipe); over HTTP it is an axum middleware in front of the SDK's Streamable HTTP service.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::params;
use crate::schema::issues_data;

/// The largest HTTP request body the gateway reads to check (the MCP endpoint's own bound);
/// larger bodies pass through for the SDK to refuse.
pub const MAX_CHECKED_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The `-32602` error response for a request whose params do not fit its method's schema, or
/// `None` when the message passes.
pub fn check_message(message: &Value) -> Option<Value> {
    let object = message.as_object()?;
    let method = object.get("method")?.as_str()?;
    let id = object.get("id")?;
    if !params::CHECKED_METHODS.contains(&method) {
        return None;
    }
    let issues = params::issues(method, object.get("params"));
    if issues.is_empty() {
        return None;
    }
    let message = format!(
        "invalid params: {}",
        issues
            .iter()
            .map(|issue| {
                let path = if issue.path.is_empty() {
                    "params"
                } else {
                    &issue.path
                };
                format!("{path} {}", issue.message)
            })
            .collect::<Vec<_>>()
            .join("; ")
    );
    Some(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32602, "message": message, "data": issues_data(&issues)},
    }))
}

/// Relays newline-delimited JSON-RPC between the client (`input`, `output`) and the SDK
/// (`server_in`, `server_out`), answering schema-invalid requests itself. Returns when both
/// directions reached end of stream.
pub async fn relay_lines<I, O, SI, SO>(input: I, output: O, server_in: SI, server_out: SO)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
    SI: AsyncWrite + Unpin + Send + 'static,
    SO: AsyncRead + Unpin + Send + 'static,
{
    let output = Arc::new(Mutex::new(output));
    let to_client = {
        let output = Arc::clone(&output);
        tokio::spawn(async move {
            let mut lines = BufReader::new(server_out);
            let mut line = Vec::new();
            loop {
                line.clear();
                match lines.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let mut out = output.lock().await;
                        if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                            break;
                        }
                    }
                }
            }
        })
    };
    let mut server_in = server_in;
    let mut lines = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let refusal = serde_json::from_slice::<Value>(&line)
            .ok()
            .and_then(|message| check_message(&message));
        match refusal {
            Some(error) => {
                let mut text = error.to_string();
                text.push('\n');
                let mut out = output.lock().await;
                let _ = out.write_all(text.as_bytes()).await;
                let _ = out.flush().await;
            }
            None => {
                if server_in.write_all(&line).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = server_in.shutdown().await;
    let _ = to_client.await;
}

/// The axum middleware: answers a schema-invalid POSTed request with `-32602` (HTTP 200, JSON)
/// and passes everything else to the SDK's service unchanged, except that a session `DELETE`
/// the SDK accepted answers `200` rather than `202` (as `environment-serve` does).
pub async fn http_gateway(request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        let method = request.method().clone();
        let response = next.run(request).await;
        return rea_serve::mcp::session_delete_status(&method, response);
    }
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, MAX_CHECKED_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return (StatusCode::PAYLOAD_TOO_LARGE, "request body too large").into_response();
        }
    };
    if let Ok(message) = serde_json::from_slice::<Value>(&bytes)
        && let Some(error) = check_message(&message)
    {
        return (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            error.to_string(),
        )
            .into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    // contract: PROMPTS-072, PROMPTS-073
    #[test]
    fn only_schema_invalid_requests_of_the_checked_methods_are_answered() {
        let error = check_message(&json!({
            "jsonrpc": "2.0", "id": 7, "method": "prompts/list", "params": {"cursor": 1}
        }))
        .expect("refused");
        assert_eq!(error["id"], 7);
        assert_eq!(error["error"]["code"], -32602);
        assert_eq!(error["error"]["data"]["issues"][0]["path"], "/cursor");
        for passes in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/list"}),
            json!({"jsonrpc": "2.0", "method": "prompts/list", "params": {"cursor": 1}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"cursor": 1}}),
            json!([{"jsonrpc": "2.0", "id": 1, "method": "prompts/list"}]),
        ] {
            assert_eq!(check_message(&passes), None, "{passes}");
        }
    }

    #[tokio::test]
    async fn the_relay_answers_invalid_lines_and_forwards_the_rest() {
        let (client_in, mut client_writer) = tokio::io::duplex(1 << 16);
        let (mut client_reader, client_out) = tokio::io::duplex(1 << 16);
        let (relay_side, server_side) = tokio::io::duplex(1 << 16);
        let (server_reader, server_writer) = tokio::io::split(server_side);
        let (relay_reader, relay_writer) = tokio::io::split(relay_side);
        let relay = tokio::spawn(relay_lines(
            client_in,
            client_out,
            relay_writer,
            relay_reader,
        ));
        // A fake server that echoes each forwarded line.
        let echo = tokio::spawn(async move {
            let mut lines = BufReader::new(server_reader);
            let mut writer = server_writer;
            let mut line = Vec::new();
            while lines.read_until(b'\n', &mut line).await.unwrap_or(0) > 0 {
                writer.write_all(&line).await.expect("echo");
                line.clear();
            }
            writer.shutdown().await.expect("shutdown");
        });
        client_writer
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":[]}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n")
            .await
            .expect("write");
        client_writer.shutdown().await.expect("close");
        relay.await.expect("relay");
        echo.await.expect("echo");
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut client_reader, &mut text)
            .await
            .expect("read");
        let replies: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).expect("json"))
            .collect();
        assert_eq!(replies.len(), 2);
        assert!(
            replies
                .iter()
                .any(|reply| reply["error"]["code"] == -32602 && reply["id"] == 1)
        );
        assert!(
            replies
                .iter()
                .any(|reply| reply["method"] == "tools/list" && reply["id"] == 2)
        );
    }
}

//! Issue 15: a soak of a served environment. 100,000 mixed calls at concurrency 64 against
//! `rea environment-serve` (the json-server capture, served from the state) over loopback: MCP
//! reads, lists and writes (stateless 2026-07-28 `tools/call`, `tools/list`) and the data plane
//! (`data/get`, and `data/add` of malformed states, refused mid-round), in rounds that each start
//! with `data/reset` and `data/add` of a state with one post per worker. It prints the calls,
//! errors and RSS, and requires:
//! * no answer at 500 or above, and no transport error;
//! * RSS after 15 s idle within 10% of RSS at the start, both measured holding the same state:
//!   the rounds leave thousands of created comments behind, which are data, not a leak, so the
//!   idle measure comes after a `data/reset` and a load of the start state again. "Start" is
//!   after a warm-up: one call of each kind the workers make (each MCP tool, `tools/list`,
//!   `data/get`, a refused `data/add`), then `data/reset` and the load. Before it the server has
//!   not yet run those code paths: the first call of each kind pages in the binary's code for it
//!   (file-backed pages, not memory the server holds) and makes its one-time allocations. RSS
//!   before the warm-up (after the first load) is printed too, with the idle figure against it.
//!   The server gives freed heap back once idle for 5 s, and again 1 s after its last connection
//!   closed (the client drops keep-alive connections idle for 5 s, before the server's 10 s
//!   request-head timeout would close them under a request);
//! * the final `data/get` equal to a sequential replay of the final round's accepted writes
//!   (from the same start: `data/reset`, `data/add`; each worker's patches in its order, creates
//!   in the order the server numbered them). Earlier rounds end in the next round's reset and
//!   load, so the final state depends on the final round only.
//!
//! The printed RSS figures also split each measure into anonymous memory (the heap) and
//! file-backed pages (the binary's code, paged in as calls first reach it).
//!
//! Ignored by default (about four minutes in a debug build); `tests/security/run.sh` runs it
//! (`cargo test -p rea-tests --test it -- --ignored security_soak::`), and so does the test
//! command (`tests/run-all.sh`). `REA_SOAK_CALLS` changes the number of calls.

use crate::serve_support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};
use serde_json::{Value, json};
use serve_support::process::{Server, address};

const WORKERS: usize = 64;
const ROUNDS: usize = 5;

/// A process's resident memory (KiB): in all, anonymous (`RssAnon`) and file-backed (`RssFile`).
#[derive(Debug, Clone, Copy, Default)]
struct Rss {
    total: u64,
    anon: u64,
    file: u64,
}

fn rss_kib(pid: u32) -> Rss {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .unwrap_or(0)
    };
    Rss {
        total: field("VmRSS:"),
        anon: field("RssAnon:"),
        file: field("RssFile:"),
    }
}

/// The CPU time a process has used so far, in seconds (user and system; clock ticks of 1/100 s).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|field| field.parse::<u64>().ok())
        .sum();
    ticks as f64 / 100.0
}

/// One accepted write of the final round.
#[derive(Debug, Clone)]
enum Write {
    Patch {
        worker: usize,
        seq: usize,
        title: String,
    },
    Create {
        post: u64,
        id: u64,
        body: Value,
    },
}

struct Client {
    http: reqwest::Client,
    base: String,
    host: String,
    server_errors: AtomicU64,
    transport_errors: AtomicU64,
    /// The first few transport errors, as reqwest described them (the failure names them).
    transport_messages: std::sync::Mutex<Vec<String>>,
    tool_errors: AtomicU64,
    calls: AtomicU64,
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"soak","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

impl Client {
    fn transport_error(&self, message: String) {
        self.transport_errors.fetch_add(1, Ordering::Relaxed);
        let mut messages = self.transport_messages.lock().expect("messages");
        if messages.len() < 5 {
            messages.push(message);
        }
    }

    async fn send(&self, path: &str, headers: &[(&str, &str)], body: String) -> Option<Value> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let mut request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("host", &self.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                self.transport_error(format!("{path}: {error:?}"));
                return None;
            }
        };
        if response.status().is_server_error() {
            self.server_errors.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let bytes = match response.bytes().await {
            Ok(bytes) => bytes,
            Err(error) => {
                self.transport_error(format!("{path}, reading the body: {error:?}"));
                return None;
            }
        };
        serde_json::from_slice(&bytes).ok()
    }

    /// A stateless `tools/call`; the tool's JSON answer when it is not a tool error.
    async fn tool(&self, name: &str, arguments: Value) -> Option<Value> {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":{},"arguments":{arguments},{META}}}}}"#,
            Value::String(name.to_owned())
        );
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
        ];
        let reply = self.send("/mcp", &headers, body).await?;
        let result = reply.get("result")?;
        if result["isError"] == true {
            self.tool_errors.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let text = result["content"][0]["text"].as_str()?;
        serde_json::from_str(text).ok()
    }

    async fn tools_list(&self) {
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{META}}}}}"#);
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
        ];
        let _ = self.send("/mcp", &headers, body).await;
    }

    async fn data(&self, method: &str, params: Value) -> Option<Value> {
        let body =
            json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params}).to_string();
        self.send("/agentenv", &[], body)
            .await?
            .get("result")
            .cloned()
    }
}

/// The state a round starts from: the served state with posts `1001..=1064`, one per worker.
fn start_document(reported: &Value) -> Value {
    let mut document = reported.clone();
    let state = document["rea_state"].as_object_mut().expect("rea_state");
    let entities = state["entities"].as_array_mut().expect("entities");
    let post = entities
        .iter()
        .find(|entity| entity["collection"] == "/posts")
        .cloned()
        .expect("a post");
    for worker in 0..WORKERS {
        let id = 1001 + worker as u64;
        let mut entity = post.clone();
        entity["id"] = json!(id.to_string());
        entity["fields"]["id"] = json!(id);
        entity["fields"]["title"] = json!(format!("start {worker}"));
        entity
            .as_object_mut()
            .expect("entity")
            .remove("record_ordinals");
        entity
            .as_object_mut()
            .expect("entity")
            .remove("view_fields");
        entities.push(entity);
    }
    document
}

async fn worker_round(
    client: Arc<Client>,
    worker: usize,
    round: usize,
    calls: usize,
) -> Vec<Write> {
    let mut seed = [0u8; 32];
    seed[0] = worker as u8;
    seed[1] = round as u8;
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
    let post = 1001 + worker as u64;
    let mut writes = Vec::new();
    for seq in 0..calls {
        match rng.random_range(0..100u32) {
            0..45 => {
                let id = if rng.random_bool(0.5) {
                    post
                } else {
                    1001 + rng.random_range(0..WORKERS as u64)
                };
                let _ = client
                    .tool("get_posts_by_id", json!({"id": id.to_string()}))
                    .await;
            }
            45..53 => {
                let _ = client.tool("get_posts", json!({})).await;
            }
            53..78 => {
                let title = format!("r{round}-w{worker}-{seq}");
                let arguments = json!({"id": post.to_string(), "body": {"title": title}});
                if client.tool("patch_posts_by_id", arguments).await.is_some() {
                    writes.push(Write::Patch { worker, seq, title });
                }
            }
            78..90 => {
                let body = json!({"approved": true, "author": format!("w{worker}"), "body": format!("c{seq}")});
                let arguments = json!({"post_id": post.to_string(), "body": body});
                if let Some(answer) = client
                    .tool("post_posts_comments_by_post_id", arguments)
                    .await
                    && let Some(id) = answer["body"]["id"].as_u64()
                {
                    writes.push(Write::Create { post, id, body });
                }
            }
            90..92 => {
                let _ = client.data("data/get", json!({})).await;
            }
            92..94 => {
                // A load that must be refused mid-round, changing nothing.
                let bad =
                    json!({"parts": [{"kind": "data", "data": {"rea_state": {"entities": 7}}}]});
                let loaded = client.data("data/add", bad).await;
                assert_eq!(loaded, None, "a malformed state is refused");
            }
            _ => client.tools_list().await,
        }
    }
    writes
}

async fn start_round(client: &Client, start: &Value) {
    client
        .data("data/reset", json!({}))
        .await
        .expect("data/reset");
    let loaded = client
        .data(
            "data/add",
            json!({"parts": [{"kind": "data", "data": start}]}),
        )
        .await;
    assert_eq!(loaded, Some(json!({})), "the round's state loads");
}

fn state_of(reported: &Value) -> Value {
    reported["parts"][0]["data"].clone()
}

/// What the rounds left: the start document, the final round's accepted writes, the final
/// state, and RSS (see [`Rounds::rss`]).
struct Rounds {
    start: Value,
    final_writes: Vec<Write>,
    final_state: Value,
    /// RSS before the warm-up (after the first load), at the start (after the warm-up and a
    /// reset and load), its peak (KiB) and after 15 s idle holding the start state again.
    rss: (Rss, Rss, u64, Rss),
}

/// One call of each kind the workers make, so that "start" is measured after the server ran
/// each code path once (their writes end in the next reset).
async fn warm_up(client: &Client) {
    let post = "1001";
    let _ = client.tool("get_posts_by_id", json!({"id": post})).await;
    let _ = client.tool("get_posts", json!({})).await;
    let patch = json!({"id": post, "body": {"title": "warm-up"}});
    let _ = client.tool("patch_posts_by_id", patch).await;
    let body = json!({"approved": true, "author": "warm-up", "body": "warm-up"});
    let comment = json!({"post_id": post, "body": body});
    let _ = client.tool("post_posts_comments_by_post_id", comment).await;
    let _ = client.data("data/get", json!({})).await;
    let bad = json!({"parts": [{"kind": "data", "data": {"rea_state": {"entities": 7}}}]});
    assert_eq!(client.data("data/add", bad).await, None, "refused");
    client.tools_list().await;
}

/// Every round: a reset and load of the start document, then 64 workers' mixed calls.
async fn run_rounds(client: &Arc<Client>, pid: u32, total: usize) -> Rounds {
    let reported = client.data("data/get", json!({})).await.expect("data/get");
    let start = start_document(&state_of(&reported));
    start_round(client, &start).await;
    let rss_cold = rss_kib(pid);
    warm_up(client).await;
    start_round(client, &start).await;
    let rss_start = rss_kib(pid);
    let per_worker = total / (WORKERS * ROUNDS);
    let mut rss_peak = rss_start.total;
    let mut final_writes = Vec::new();
    for round in 0..ROUNDS {
        if round > 0 {
            start_round(client, &start).await;
        }
        let tasks: Vec<_> = (0..WORKERS)
            .map(|worker| tokio::spawn(worker_round(Arc::clone(client), worker, round, per_worker)))
            .collect();
        let mut writes = Vec::new();
        for task in tasks {
            writes.extend(task.await.expect("worker"));
        }
        rss_peak = rss_peak.max(rss_kib(pid).total);
        final_writes = writes;
    }
    let final_state = state_of(&client.data("data/get", json!({})).await.expect("data/get"));
    start_round(client, &start).await;
    tokio::time::sleep(Duration::from_secs(15)).await;
    Rounds {
        start,
        final_writes,
        final_state,
        rss: (rss_cold, rss_start, rss_peak, rss_kib(pid)),
    }
}

/// The sequential replay of the final round's accepted writes from the same start: each
/// worker's patches in its order, creates in the order the server numbered them.
async fn replay(client: &Client, rounds: &Rounds) -> Value {
    start_round(client, &rounds.start).await;
    let mut patches: BTreeMap<(usize, usize), &str> = BTreeMap::new();
    let mut creates: Vec<(u64, u64, &Value)> = Vec::new();
    for write in &rounds.final_writes {
        match write {
            Write::Patch { worker, seq, title } => {
                patches.insert((*worker, *seq), title);
            }
            Write::Create { post, id, body } => creates.push((*id, *post, body)),
        }
    }
    creates.sort_by_key(|(id, ..)| *id);
    for ((worker, _), title) in &patches {
        let arguments =
            json!({"id": (1001 + *worker as u64).to_string(), "body": {"title": title}});
        client
            .tool("patch_posts_by_id", arguments)
            .await
            .expect("replayed patch");
    }
    for (id, post, body) in &creates {
        let arguments = json!({"post_id": post.to_string(), "body": body});
        let answer = client
            .tool("post_posts_comments_by_post_id", arguments)
            .await
            .expect("replayed create");
        assert_eq!(
            answer["body"]["id"].as_u64(),
            Some(*id),
            "the replay numbers creates alike"
        );
    }
    state_of(&client.data("data/get", json!({})).await.expect("data/get"))
}

fn client_of(address: &str) -> Client {
    Client {
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(WORKERS)
            // Below the server's 10 s request-head timeout, which closes a keep-alive connection
            // idle that long: a client reusing it at that instant sees `IncompleteMessage` (the
            // keep-alive race of HTTP/1.1, a harness fault, not the server's).
            .pool_idle_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(60))
            .build()
            .expect("client"),
        base: format!("http://{address}"),
        host: address.to_owned(),
        server_errors: AtomicU64::new(0),
        transport_errors: AtomicU64::new(0),
        transport_messages: std::sync::Mutex::new(Vec::new()),
        tool_errors: AtomicU64::new(0),
        calls: AtomicU64::new(0),
    }
}

#[test]
#[ignore = "soak: about four minutes; tests/security/run.sh runs it"]
fn soak_mixed_calls_at_concurrency_64() {
    let total: usize = std::env::var("REA_SOAK_CALLS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100_000);
    let mut server = Server::json_server(&[]);
    let address = address(&server.url());
    let pid = server.child.id();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = Arc::new(client_of(&address));
    let started = Instant::now();
    let rounds = runtime.block_on(run_rounds(&client, pid, total));
    let elapsed = started.elapsed();
    let calls = client.calls.load(Ordering::Relaxed);
    let (server_cpu, client_cpu) = (cpu_seconds(pid), cpu_seconds(std::process::id()));
    let replayed = runtime.block_on(replay(&client, &rounds));
    server.signal("TERM");
    let (_, _, server_stderr) = server.finish();
    // A handler that panics drops its connection: the client sees a transport error, and the
    // server's stderr says why.
    let panics: Vec<&String> = server_stderr
        .iter()
        .filter(|line| line.contains("panicked"))
        .collect();

    let (rss_cold, rss_start, rss_peak, rss_idle) = rounds.rss;
    let server_errors = client.server_errors.load(Ordering::Relaxed);
    let transport_errors = client.transport_errors.load(Ordering::Relaxed);
    println!(
        "soak: {calls} calls at concurrency {WORKERS} in {:.1} s ({:.0} calls/s, CPU: server {server_cpu:.1} s, client {client_cpu:.1} s); 5xx {server_errors}, transport errors {transport_errors}, tool errors {}; final round's accepted writes {}; RSS start {} KiB, peak {rss_peak} KiB, after 15 s idle holding the start state again {} KiB ({:+.1}%; anonymous {} -> {} KiB, file-backed {} -> {} KiB); before the warm-up {} KiB (idle {:+.1}% of it; anonymous {} KiB, file-backed {} KiB)",
        elapsed.as_secs_f64(),
        calls as f64 / elapsed.as_secs_f64(),
        client.tool_errors.load(Ordering::Relaxed),
        rounds.final_writes.len(),
        rss_start.total,
        rss_idle.total,
        (rss_idle.total as f64 / rss_start.total as f64 - 1.0) * 100.0,
        rss_start.anon,
        rss_idle.anon,
        rss_start.file,
        rss_idle.file,
        rss_cold.total,
        (rss_idle.total as f64 / rss_cold.total as f64 - 1.0) * 100.0,
        rss_cold.anon,
        rss_cold.file,
    );
    assert!(calls >= total as u64 * 99 / 100, "{calls} calls");
    assert_eq!(
        (server_errors, transport_errors),
        (0, 0),
        "transport errors: {:?}; server panics: {panics:?}",
        client.transport_messages.lock().expect("messages")
    );
    assert!(!rounds.final_writes.is_empty(), "the final round wrote");
    assert!(
        rss_idle.total as f64 <= rss_start.total as f64 * 1.10,
        "RSS {} KiB after idle, {} KiB at the start",
        rss_idle.total,
        rss_start.total
    );
    assert_eq!(
        rounds.final_state, replayed,
        "the final state is the sequential replay's"
    );
}

//! Issue 15: fuzzing, to keep hostile inputs refused. Eight targets, each a test that runs its
//! checked-in corpus (`tests/fuzz/corpus/<target>/`) and then mutations of it for a bounded time
//! (`REA_FUZZ_SECONDS`: 2 by default; `tests/security/run.sh`, from `tests/run-all.sh`, gives each
//! 25) with a seeded generator (`REA_FUZZ_SEED`), and prints its executions. A crash is a panic or
//! a broken property; the input is written to `target/fuzz-crashes/` and the test fails naming it.
//!
//! | Target | Property |
//! | --- | --- |
//! | `har` | the HAR reader answers an extraction or a structured refusal |
//! | `json` | the strict JSON reader refuses or reads; what it reads writes back canonically and reads again the same |
//! | `mcp` | `POST /mcp` on a served state answers below 500, JSON when it says JSON |
//! | `agentenv` | `POST /agentenv` likewise (downloads allowed only to a closed loopback port) |
//! | `state` | `data/add` of a document refuses or loads; what loads reports a `data/get` that loads again unchanged |
//! | `pipeline` | the pipeline TOML parses or lists its problems; a library-free pipeline resolves or refuses |
//! | `scenario` | a browser scenario validates or lists problems, each with a JSON pointer and a message that holds no secret's value |
//! | `session` | the browser-scenario extractor answers an extraction or a structured refusal for a recorded session |

use crate::state_support;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, header};
use proptest::prelude::{Rng, RngExt};
use proptest::test_runner::{RngAlgorithm, TestRng};
use rea_backends::fetch::{FetchOptions, SourceAllowList};
use rea_plugin_api::contracts::capture::ExtractRequest;
use rea_plugin_api::json::{self, ParseOptions};
use rea_serve::{AppOptions, DataCall, ShutdownToken};
use serde_json::Value;
use tower::ServiceExt;

/// Fragments mutations splice in: JSON and TOML structure, edge numbers, escapes, deep nesting.
const TOKENS: [&str; 24] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "null",
    "1e400",
    "-0",
    "0.1000000000000000000001",
    "9007199254740993",
    "\\u0000",
    "\\ud800",
    "\u{feff}",
    "[[[[[[[[[[[[[[[[",
    "{\"a\":",
    "\"__proto__\"",
    "=",
    "[[rules]]\n",
    "\"jsonrpc\":\"2.0\"",
    "\"method\":\"data/add\"",
    "\n",
];

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let folder = rea_tests::workspace_root()
        .join("tests/fuzz/corpus")
        .join(target);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("the {target} corpus at {}: {error}", folder.display()))
        .map(|entry| entry.expect("entry").path())
        .collect();
    paths.sort();
    let inputs: Vec<Vec<u8>> = paths
        .iter()
        .map(|path| std::fs::read(path).expect("read"))
        .collect();
    assert!(!inputs.is_empty(), "the {target} corpus is empty");
    inputs
}

fn seconds() -> f64 {
    std::env::var("REA_FUZZ_SECONDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(2.0)
}

fn rng() -> TestRng {
    let seed: u64 = std::env::var("REA_FUZZ_SEED")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(15);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// One to four mutations of a corpus input (possibly spliced with another).
fn mutate(inputs: &[Vec<u8>], rng: &mut TestRng) -> Vec<u8> {
    let mut data = inputs[rng.random_range(0..inputs.len())].clone();
    for _ in 0..rng.random_range(1..=4) {
        let at = if data.is_empty() {
            0
        } else {
            rng.random_range(0..=data.len())
        };
        match rng.random_range(0..8u8) {
            0 if !data.is_empty() => {
                let index = at.min(data.len() - 1);
                data[index] ^= 1 << rng.random_range(0..8);
            }
            1 if !data.is_empty() => {
                let index = at.min(data.len() - 1);
                data[index] = b"\"{}[],:\\0-e9 \x00\xff"[rng.random_range(0..15)];
            }
            2 => {
                let token = TOKENS[rng.random_range(0..TOKENS.len())].as_bytes();
                data.splice(at..at, token.iter().copied());
            }
            3 if !data.is_empty() => {
                let end = (at + rng.random_range(1..64)).min(data.len());
                data.drain(at.min(end)..end);
            }
            4 if !data.is_empty() => {
                let end = (at + rng.random_range(1..256)).min(data.len());
                let chunk = data[at.min(end)..end].to_vec();
                data.splice(at..at, chunk);
            }
            5 => {
                let other = &inputs[rng.random_range(0..inputs.len())];
                let from = rng.random_range(0..=other.len());
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            6 => data.truncate(at),
            _ => {
                let mut noise = vec![0u8; rng.random_range(1..16)];
                rng.fill_bytes(&mut noise);
                data.splice(at..at, noise);
            }
        }
    }
    data
}

/// Runs the corpus, then mutations until the time is up; prints the executions.
fn fuzz(target: &str, mut check: impl FnMut(&[u8]) -> Result<(), String>) {
    let inputs = corpus(target);
    let mut rng = rng();
    let mut run_one = |input: &[u8]| {
        let outcome = catch_unwind(AssertUnwindSafe(|| check(input)));
        let failure = match outcome {
            Ok(Ok(())) => return,
            Ok(Err(broken)) => broken,
            Err(_) => "a panic".to_owned(),
        };
        let folder = rea_tests::workspace_root().join("target/fuzz-crashes");
        let _ = std::fs::create_dir_all(&folder);
        let path = folder.join(format!("{target}-{}.bin", rea_evidence::sha256_hex(input)));
        let _ = std::fs::write(&path, input);
        panic!(
            "fuzz {target}: {failure}; input saved to {}",
            path.display()
        );
    };
    for input in &inputs {
        run_one(input);
    }
    let budget = Duration::from_secs_f64(seconds());
    let started = Instant::now();
    let mut executions = inputs.len() as u64;
    while started.elapsed() < budget {
        let input = mutate(&inputs, &mut rng);
        run_one(&input);
        executions += 1;
    }
    println!(
        "fuzz {target}: {executions} executions in {:.1} s ({} corpus inputs), 0 crashes",
        started.elapsed().as_secs_f64(),
        inputs.len()
    );
}

#[test]
fn fuzz_har() {
    fuzz("har", |input| {
        let request = ExtractRequest {
            input_kind: "har".to_owned(),
            sensitive_values: Vec::new(),
            schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
        };
        match rea_plugin_har::extract(&request, input) {
            Ok(extraction) => serde_json::to_string(&extraction)
                .map(drop)
                .map_err(|error| format!("the extraction does not serialize: {error}")),
            Err(error) if error.code.is_empty() => Err("a refusal without a code".to_owned()),
            Err(_) => Ok(()),
        }
    });
}

#[test]
fn fuzz_json() {
    let options = ParseOptions::default().max_depth(128);
    fuzz("json", |input| {
        let Ok(value) = json::parse_with(input, &options) else {
            return Ok(());
        };
        let canonical = value.to_canonical_vec();
        let again = json::parse_with(&canonical, &options)
            .map_err(|error| format!("the canonical form does not read again: {error}"))?;
        if again != value || again.to_canonical_vec() != canonical {
            return Err("the canonical form reads back differently".to_owned());
        }
        Ok(())
    });
}

/// A served json-server state behind the real router, and a runtime to drive it.
fn served_app() -> (axum::Router, tokio::runtime::Runtime) {
    let options = FetchOptions {
        // Only a closed loopback port may be downloaded from: a mutated uri never leaves the
        // machine (any other origin is refused before DNS).
        allow: SourceAllowList::parse("https://127.0.0.1:9").expect("allow list"),
        ..FetchOptions::default()
    };
    let served = state_support::serve_with("json-server/build.har", options);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let app = runtime.block_on(async {
        rea_serve::app(
            served.backend.clone(),
            served.plane.clone(),
            AppOptions::default(),
        )
    });
    (app, runtime)
}

fn post(
    runtime: &tokio::runtime::Runtime,
    app: &axum::Router,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<(), String> {
    let mut request = Request::post(path)
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(Body::from(body.to_vec())).expect("request");
    runtime.block_on(async {
        let response = tokio::time::timeout(Duration::from_secs(30), app.clone().oneshot(request))
            .await
            .map_err(|_| "no answer within 30 s".to_owned())?
            .expect("infallible");
        let status = response.status();
        // An input that opened a session closes it, as a client would: the fuzz loop would
        // otherwise fill the session cap (answered 503 `too_many_sessions`, by design).
        let session = response.headers().get("mcp-session-id").cloned();
        let json_body = response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
        let bytes = axum::body::to_bytes(response.into_body(), 256 * 1024 * 1024)
            .await
            .map_err(|error| format!("the body did not arrive: {error}"))?;
        if let Some(session) = session {
            close_session(app, session).await?;
        }
        if status.is_server_error() {
            return Err(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        if json_body && !bytes.is_empty() && serde_json::from_slice::<Value>(&bytes).is_err() {
            return Err(format!(
                "HTTP {status} says JSON but is not: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        Ok(())
    })
}

/// `DELETE /mcp` with the session id a response gave; the server must accept it.
async fn close_session(app: &axum::Router, session: header::HeaderValue) -> Result<(), String> {
    let request = Request::delete("/mcp")
        .header(header::HOST, "127.0.0.1:8765")
        .header("mcp-session-id", session)
        .body(Body::empty())
        .expect("request");
    let response = app.clone().oneshot(request).await.expect("infallible");
    if response.status().is_server_error() {
        return Err(format!("closing a session: HTTP {}", response.status()));
    }
    Ok(())
}

#[test]
fn fuzz_mcp() {
    let (app, runtime) = served_app();
    let revisions = [
        &[][..],
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_posts_by_id"),
        ][..],
        &[("mcp-protocol-version", "2025-06-18")][..],
    ];
    let mut turn = 0usize;
    fuzz("mcp", |input| {
        turn += 1;
        post(
            &runtime,
            &app,
            "/mcp",
            revisions[turn % revisions.len()],
            input,
        )
    });
}

#[test]
fn fuzz_agentenv() {
    let (app, runtime) = served_app();
    fuzz("agentenv", |input| {
        post(&runtime, &app, "/agentenv", &[], input)
    });
}

#[test]
fn fuzz_state() {
    let served = state_support::serve("json-server/build.har");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let get = |runtime: &tokio::runtime::Runtime| {
        let call = DataCall {
            method: "data/get".to_owned(),
            params: None,
            params_raw: None,
            expects_reply: true,
            cancel: ShutdownToken::new(),
        };
        runtime.block_on(served.plane.run(call))
    };
    fuzz("state", |input| {
        let params = format!(
            r#"{{"parts":[{{"kind":"data","data":{}}}]}}"#,
            String::from_utf8_lossy(input)
        );
        if runtime.block_on(served.plane.add_raw(&params)).is_err() {
            return Ok(());
        }
        let reported = get(&runtime).map_err(|error| format!("data/get failed: {error:?}"))?;
        let document = reported["parts"][0]["data"].to_string();
        let params = format!(r#"{{"parts":[{{"kind":"data","data":{document}}}]}}"#);
        runtime
            .block_on(served.plane.add_raw(&params))
            .map_err(|error| format!("what data/get reported does not load: {error:?}"))?;
        let again = get(&runtime).map_err(|error| format!("data/get failed: {error:?}"))?;
        if again != reported {
            return Err("a reported state loads back differently".to_owned());
        }
        Ok(())
    });
}

#[test]
fn fuzz_pipeline() {
    let base = Path::new("/nonexistent-fuzz-base");
    let mut registry = rea::builtin_registry().expect("built-ins");
    fuzz("pipeline", |input| {
        let text = String::from_utf8_lossy(input);
        match rea_pipeline::parse(&text, "fuzz.toml", base) {
            Err(errors) if errors.0.is_empty() => Err("a refusal without problems".to_owned()),
            Err(_) => Ok(()),
            // Never load a library a mutated path names.
            Ok(spec) if !spec.libraries.is_empty() => Ok(()),
            Ok(spec) => match rea_pipeline::resolve(&spec, &mut registry) {
                Err(errors) if errors.0.is_empty() => Err("a refusal without problems".to_owned()),
                _ => Ok(()),
            },
        }
    });
}

/// The secrets the scenario corpus declares, by environment variable, and their values.
const SCENARIO_SECRETS: [(&str, &str); 3] = [
    ("APP_PASSWORD", "correct-horse-12"),
    ("REA_TEST_NOTE", "s3cr3t-note-7f3a"),
    ("REA_TEST_TOKEN", "bearer-t0ken-91c4"),
];

#[test]
fn fuzz_scenario() {
    let environment = |name: &str| {
        SCENARIO_SECRETS
            .iter()
            .find(|(variable, _)| *variable == name)
            .map(|(_, value)| (*value).to_owned())
    };
    fuzz("scenario", |input| {
        match rea_browser::validate(input, &environment) {
            Ok(validated) => serde_json::to_string(&validated.document)
                .map(drop)
                .map_err(|error| format!("the validated document does not serialize: {error}")),
            Err(problems) if problems.is_empty() => Err("a refusal without problems".to_owned()),
            Err(problems) => problems.iter().try_for_each(|problem| {
                if !(problem.pointer.is_empty() || problem.pointer.starts_with('/')) {
                    return Err(format!("`{}` is not a JSON pointer", problem.pointer));
                }
                if problem.message.is_empty() {
                    return Err(format!(
                        "a problem at `{}` without a message",
                        problem.pointer
                    ));
                }
                match SCENARIO_SECRETS
                    .iter()
                    .find(|(_, value)| problem.message.contains(value))
                {
                    Some((variable, _)) => {
                        Err(format!("a problem message shows {variable}'s value"))
                    }
                    None => Ok(()),
                }
            }),
        }
    });
}

#[test]
fn fuzz_session() {
    let request = ExtractRequest {
        input_kind: rea_plugin_api::contracts::session::INPUT_KIND.to_owned(),
        sensitive_values: Vec::new(),
        schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
    };
    fuzz(
        "session",
        |input| match rea_plugin_browser_scenario::extract(&request, input) {
            Ok(extraction) => serde_json::to_string(&extraction)
                .map(drop)
                .map_err(|error| format!("the extraction does not serialize: {error}")),
            Err(error) if error.code.is_empty() => Err("a refusal without a code".to_owned()),
            Err(_) => Ok(()),
        },
    );
}

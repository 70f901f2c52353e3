//! `rea environment-serve` as a process: the listening line, the environment variables, the
//! refusals before binding, signals and the stopped document. Inputs are the shared json-server
//! and kinto captures, inspected and projected with the `rea` binary itself. Servers bind
//! 127.0.0.1 only.

use crate::serve_support as support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::process::{
    Server, address, answer_of, call_tool, card, input_json, inputs, project_har, tools_list,
};
use support::synthetic::wide_har;

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

#[test]
fn serves_replay_until_sigterm_and_reports_the_stop() {
    // contract: SERVE-001
    let mut server = Server::start(&replay_args(), &[]);
    let url = server.url();
    // contract: SERVE-004
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let address = address(&url);
    // contract: SERVE-005
    assert_ne!(address, "127.0.0.1:0");

    // contract: SERVE-026
    let card = card(&url);
    // contract: SERVE-010, CARD-002
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
    // contract: SERVE-028
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["message"],
        "method not found: data/get"
    );
    // contract: SERVE-028
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["code"],
        -32601
    );

    server.signal("TERM");
    let (code, stdout, stderr) = server.finish();
    // contract: SERVE-017
    assert_eq!(code, Some(143));
    let stopped: Value = serde_json::from_str(&stdout).expect("one JSON document");
    // contract: SERVE-015
    assert_eq!(stopped["status"], "stopped");
    assert_eq!(stopped["signal"], "SIGTERM");
    assert_eq!(stopped["url"], url.as_str());
    assert_eq!(stopped["name"], card["name"]);
    assert_eq!(
        stopped["tool_count"],
        card["capabilities"]["tools"].as_array().unwrap().len()
    );
    // contract: SERVE-003, SERVE-016
    assert_eq!(
        stopped["state"],
        json!({"served": false, "reason": "replay-only"})
    );
    let listening: Vec<&String> = stderr
        .iter()
        .filter(|line| line.contains("MCP transport listening"))
        .collect();
    // contract: SERVE-007
    assert_eq!(listening.len(), 1, "{stderr:?}");
    // The listener is closed.
    // contract: SERVE-014
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
    // At warn, no info line (the listening line is one) is written; warnings may be.
    assert!(
        stderr.iter().all(|line| {
            let level = serde_json::from_str::<Value>(line).unwrap_or(Value::Null)["level"].clone();
            level == "warn" || level == "error"
        }),
        "at warn, the info listening line is not written: {stderr:?}"
    );
    assert!(
        !stderr
            .iter()
            .any(|line| line.contains("MCP transport listening"))
    );
}

/// Each refusal below is checked (in `refused`) to come before the listener binds.
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
    // contract: LIMITS-002, LIMITS-006
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
    // contract: LIMITS-003
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
    // contract: LIMITS-004
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
    // contract: LIMITS-005
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

// contract: CARD-030, LIMITS-002, MANIFEST-020
#[test]
fn the_discovery_reservation_admits_1500_fields_and_refuses_a_larger_catalog_before_binding() {
    project_har("wide-1500", &wide_har(15, "http://127.0.0.1:8080"));
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
    let card = card(&url);
    let fields: usize = card["capabilities"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["inputSchema"]["properties"].as_object().unwrap().len())
        .sum();
    assert_eq!(fields, 1500);
    // The calibration case: eight concurrent discoveries (tools/list and the card) are served
    // whole. (Their peak memory is measured by host/crates/serve/bench/load.sh.)
    let listed = tools_list(&url);
    let discoveries: Vec<_> = (0..8)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                (0..3)
                    .map(|_| (tools_list(&url), support::process::card(&url)))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for discovery in discoveries {
        for (tools, again) in discovery.join().unwrap() {
            assert_eq!(tools, listed);
            assert_eq!(again, card);
        }
    }
    server.signal("TERM");
    assert_eq!(server.finish().0, Some(143));

    project_har("wide-20000", &wide_har(200, "http://127.0.0.1:8080"));
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

/// The recorded response of a capture record as replay answers it: `(status, body)`, the body
/// parsed when it is JSON, else its text.
fn recorded(record: &Value) -> (Value, Value) {
    let response = &record["response"];
    let text = response["body"]["text"].as_str().expect("a text body");
    let body = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()));
    (response["status"].clone(), body)
}

// contract: MANIFEST-001, REPLAY-038
#[test]
fn every_tool_answers_over_mcp_from_what_the_capture_recorded() {
    let capture = input_json("json-server.capture.json");
    let manifest = input_json("json-server.manifest.json");
    let records: std::collections::BTreeMap<u64, &Value> = capture["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|record| (record["ordinal"].as_u64().unwrap(), record))
        .collect();
    let mut server = Server::start(&replay_args(), &[]);
    let url = server.url();
    // The card the agentenv framework discovers lists the tools MCP serves.
    let listed = tools_list(&url);
    let names = |tools: &[Value]| -> Vec<String> {
        tools
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let card = card(&url);
    assert_eq!(
        names(&listed),
        names(card["capabilities"]["tools"].as_array().unwrap())
    );
    let tools = manifest["tools"].as_array().unwrap();
    assert_eq!(names(&listed), names(tools));

    let mut calls = 0;
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let cited: Vec<u64> = tool["record_ordinals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|ordinal| ordinal.as_u64().unwrap())
            .collect();
        let parameters = tool["path_parameters"].as_array().unwrap();
        // Each cited record's own arguments, then values the capture never saw.
        let mut argument_sets = Vec::new();
        for ordinal in &cited {
            let record = records[ordinal];
            let segments: Vec<&str> = record["path"]
                .as_str()
                .unwrap()
                .split('/')
                .filter(|segment| !segment.is_empty())
                .collect();
            let mut arguments = serde_json::Map::new();
            for parameter in parameters {
                let index = parameter["segment_index"].as_u64().unwrap() as usize;
                arguments.insert(
                    parameter["name"].as_str().unwrap().to_owned(),
                    json!(segments[index]),
                );
            }
            for pair in record["query"]["pairs"].as_array().into_iter().flatten() {
                let query = pair[0].as_str().unwrap();
                let property = &schema_of(&listed, name)["properties"][query];
                arguments.insert(query.to_owned(), typed(property, pair[1].as_str().unwrap()));
            }
            argument_sets.push((Some(*ordinal), Value::Object(arguments)));
        }
        let mut unseen = serde_json::Map::new();
        for parameter in parameters {
            unseen.insert(
                parameter["name"].as_str().unwrap().to_owned(),
                json!("never-recorded-value"),
            );
        }
        for query in tool["query_parameters"].as_array().unwrap() {
            let query = query["name"].as_str().unwrap();
            let property = &schema_of(&listed, name)["properties"][query];
            unseen.insert(query.to_owned(), unseen_value(property));
        }
        if !unseen.is_empty() {
            argument_sets.push((None, Value::Object(unseen)));
        }

        for (ordinal, arguments) in argument_sets {
            let result = call_tool(&url, name, &arguments);
            let context = format!("{name} {arguments}: {result}");
            assert_ne!(result["isError"], true, "{context}");
            assert_eq!(
                result["_meta"]["provenance"],
                json!({"untrusted_content": true, "source": "analysis_target"})
            );
            let answer = answer_of(&result);
            let answered = answer["replay"]["record_ordinal"].as_u64().unwrap();
            // The answer is a cited record's recorded response, whatever was asked.
            // contract: REPLAY-001, STATE-011 (under `--replay-only`, every tool replays a record)
            assert!(cited.contains(&answered), "{context}");
            let (status, body) = recorded(records[&answered]);
            // contract: REPLAY-043 (status and body are that one recording's)
            assert_eq!(answer["status"], status, "{context}");
            assert_eq!(answer["body"], body, "{context}");
            assert_eq!(answer["replay"]["evidence_id"], capture["evidence_id"]);
            if let Some(ordinal) = ordinal {
                // Its own arguments name it (or an earlier recording of the same request).
                assert!(answered <= ordinal, "{context}");
                assert_eq!(records[&answered]["path"], records[&ordinal]["path"]);
                assert_eq!(answer["replay"]["exact_match"], true, "{context}");
            } else {
                assert_eq!(answer["replay"]["exact_match"], false, "{context}");
            }
            calls += 1;
        }
    }
    assert!(calls > tools.len());
    // Writes changed nothing: a second pass over the reads answers the same.
    let first = tools
        .iter()
        .find(|tool| tool["method"] == "GET" && tool["path_parameters"] == json!([]))
        .unwrap();
    let name = first["name"].as_str().unwrap();
    let before = call_tool(&url, name, &json!({}));
    assert_eq!(call_tool(&url, name, &json!({})), before);
    server.signal("TERM");
    assert_eq!(server.finish().0, Some(143));
}

/// A tool's input schema in a `tools/list` answer.
fn schema_of<'a>(listed: &'a [Value], name: &str) -> &'a Value {
    &listed
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} is listed"))["inputSchema"]
}

/// The single-value branch of a query property (the first `anyOf` branch of a repeated one).
fn single(property: &Value) -> &Value {
    property
        .get("anyOf")
        .and_then(|branches| branches.get(0))
        .unwrap_or(property)
}

/// A recorded query value as its property types it (the catalog types parameters from them).
fn typed(property: &Value, text: &str) -> Value {
    match single(property)["type"].as_str() {
        Some("integer" | "number") => serde_json::from_str(text).unwrap_or(json!(text)),
        Some("boolean") => json!(text == "true"),
        _ => json!(text),
    }
}

/// A value the capture never recorded that still fits the property (an array for a repeated
/// one).
fn unseen_value(property: &Value) -> Value {
    let one = single(property);
    let value = match (one["type"].as_str(), one.get("enum")) {
        (_, Some(values)) => values[0].clone(),
        (Some("integer"), _) => json!(987_654_321),
        (Some("number"), _) => json!(0.25),
        (Some("boolean"), _) => json!(false),
        _ => json!("never-recorded-value"),
    };
    if property.get("anyOf").is_some() {
        json!([value.clone(), value])
    } else {
        value
    }
}

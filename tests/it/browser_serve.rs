//! `rea serve SCENARIO.json` (issue 14): a browser scenario recorded in Debian's Chromium against
//! json-server 0.17.4 and served in one step, the capture kept in memory (nothing written beside
//! the scenario), the browser gone before the server listens; a scenario with a problem exits 2
//! and starts no browser.

use std::process::Command;

use serde_json::{Value, json};

use crate::browser_support::{json_server, kit, processes_naming, profiles_left, scenario};
use crate::serve_support::process::{Server, answer_of, binary, call_tool, card, tools_list};
use rea_tests::run_rea;

/// The tool whose name mentions this method and ends with this path's words.
fn tool_named<'a>(tools: &'a [Value], method: &str, words: &str) -> &'a str {
    tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .find(|name| name.starts_with(method) && name.ends_with(words))
        .unwrap_or_else(|| panic!("no {method} …{words} tool: {tools:?}"))
}

#[test]
fn a_scenario_is_recorded_in_the_browser_and_served_in_one_command() {
    let app = json_server(&[]);
    let origin = app.origin();
    let document = scenario(
        &format!("{origin}/"),
        json!([
            {"step_id": "list", "action": "request", "method": "GET", "path": "/posts",
             "expected_status": [200]},
            {"step_id": "create", "action": "request", "method": "POST", "path": "/posts",
             "json": {"id": 90, "title": "Recorded and served", "author": "scenario"},
             "expected_status": [201]},
            {"step_id": "read-back", "action": "request", "method": "GET", "path": "/posts/90",
             "expected_status": [200]},
            {"step_id": "list-again", "action": "request", "method": "GET", "path": "/posts",
             "expected_status": [200]}
        ]),
    );
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::write(
        dir.path().join("scenario.json"),
        serde_json::to_vec_pretty(&document).unwrap(),
    )
    .unwrap();
    let mut command = Command::new(binary());
    command
        .args(["serve", "scenario.json", "--port", "0"])
        .env("TMPDIR", &tmp);
    let mut server = Server::spawn_in(command, dir.path(), &[]);
    let url = server.url();
    // Recorded before the server listens: the browser and its profile are gone.
    assert_eq!(processes_naming(&tmp), Vec::<u32>::new());
    assert_eq!(profiles_left(&tmp), Vec::<String>::new());
    let tools = tools_list(&url);
    let name = card(&url)["name"].as_str().unwrap().to_owned();
    // The recorded application's API: the list answers the posts the recording read first (the
    // seed's), from the state.
    let list = tool_named(&tools, "get", "posts");
    let answer = answer_of(&call_tool(&url, list, &json!({})));
    let seed: Value =
        serde_json::from_slice(&std::fs::read(kit().join("json-server/seed/db.json")).unwrap())
            .unwrap();
    assert_eq!(answer["body"], seed["posts"], "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    server.signal("TERM");
    let (code, stdout, stderr) = server.finish();
    assert_eq!(code, Some(143), "{stderr:?}");
    for needle in [
        format!("serving {name}: {} tools, from the state", tools.len()),
        format!("  MCP     {url}"),
        "coverage: reads ".to_owned(),
        format!("stopped (SIGTERM): {name}"),
    ] {
        assert!(stdout.contains(&needle), "{needle}\n{stdout}");
    }
    // In memory: nothing beside the scenario (and the empty temporary folder).
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["scenario.json", "tmp"]);
}

/// Runs rea with these arguments in a fresh folder holding `document` as `scenario.json`.
fn run_on_scenario(document: &Value, args: &[&str]) -> rea_tests::Run {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("scenario.json"),
        serde_json::to_vec(document).unwrap(),
    )
    .unwrap();
    run_rea(&binary(), dir.path(), args)
}

#[test]
fn a_scenario_with_a_problem_exits_2_and_starts_no_browser() {
    let mut document = scenario(
        "http://127.0.0.1:9/",
        json!([{"step_id": "fly", "action": "fly"}]),
    );
    document["browser"]["executable_path"] = json!("/nonexistent/chromium");
    let run = run_on_scenario(&document, &["serve", "scenario.json", "--port", "0"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(run.stdout, "", "nothing served");
    assert!(run.stderr.contains("/actions/0"), "{}", run.stderr);
    assert!(
        !run.stderr.contains("recording"),
        "no browser: {}",
        run.stderr
    );
}

#[test]
fn the_build_refuses_a_scenario_with_the_commands_that_take_one() {
    let document = scenario("http://127.0.0.1:9/", json!([]));
    let run = run_on_scenario(
        &document,
        &["environment-build", "scenario.json", "--dry-run"],
    );
    // An input kind the build does not read: a usage mistake.
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    for hint in [
        "rea capture-browser-scenario scenario.json",
        "rea serve scenario.json",
    ] {
        assert!(run.stderr.contains(hint), "{hint}: {}", run.stderr);
    }
}

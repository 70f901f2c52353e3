//! `rea capture-browser-scenario` refusing and ending cleanly: every validation problem one
//! refusal line with its pointer, exit 2, no browser started; a connect port with nothing
//! listening; a page that never loads; a browser killed mid-run; SIGINT and SIGTERM; connect mode
//! leaving the browser running. After each run no process of the browser's group is left and the
//! temporary profile is gone.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::browser_support::{
    Capture, capture, chromium, finish, json_server, processes_naming, profiles_left, scenario,
    spawn_capture,
};
use crate::serve_support::process::{free_port, signal_process};

/// A stand-in executable that leaves a mark when something runs it.
fn tripwire(dir: &Path) -> (String, std::path::PathBuf) {
    let script = dir.join("fake-chromium");
    let mark = dir.join("started");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch {}\nsleep 30\n", mark.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script.display().to_string(), mark)
}

fn refused_before_starting(document: &Value, env: &[(&str, &str)]) -> (Capture, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let (script, mark) = tripwire(dir.path());
    let mut document = document.clone();
    if document["browser"]["executable_path"] == "TRIPWIRE" {
        document["browser"]["executable_path"] = json!(script);
    }
    let run = capture(dir.path(), &document, env);
    assert_eq!(run.code, Some(2), "stderr: {}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(!mark.exists(), "a browser was started");
    let refusals = run.refusals();
    assert_eq!(refusals.len(), run.stderr.lines().count(), "{}", run.stderr);
    for refusal in &refusals {
        assert_eq!(refusal["code"], "invalid_request", "{refusal}");
        assert_eq!(refusal["stage"], "capture_browser_scenario");
    }
    (run, refusals)
}

fn pointers(refusals: &[Value]) -> Vec<&str> {
    refusals
        .iter()
        .filter_map(|refusal| refusal["pointer"].as_str())
        .collect()
}

fn base() -> Value {
    let mut document = scenario(
        "http://127.0.0.1:9/",
        json!([{"step_id": "pause", "action": "wait", "milliseconds": 10}]),
    );
    document["browser"]["executable_path"] = json!("TRIPWIRE");
    document
}

#[test]
fn every_validation_problem_is_one_refusal_line_with_its_pointer_and_no_browser_starts() {
    let mut document = base();
    document["colour"] = json!("blue");
    document["actions"] = json!([
        {"step_id": "one", "action": "wait", "milliseconds": 10, "extra": true},
        {"step_id": "one", "action": "fill", "locator": {"kind": "css", "selector": "#a"},
         "value": {"source": "secret", "secret_id": "missing"}},
        {"step_id": "away", "action": "goto",
         "destination": {"url": "http://elsewhere.test/", "query": []}}
    ]);
    document["secrets"] = json!([
        {"secret_id": "unused", "environment_variable": "REA_TEST_UNUSED"},
        {"secret_id": "unset", "environment_variable": "REA_TEST_UNSET_VARIABLE"}
    ]);
    let (_, refusals) = refused_before_starting(&document, &[("REA_TEST_UNUSED", "value-1234")]);
    // The shape first: unknown members, each at its own pointer.
    assert_eq!(pointers(&refusals), ["/actions/0/extra", "/colour"]);
    let (_, refusals) = {
        let mut shaped = base();
        shaped["actions"] = document["actions"].clone();
        shaped["actions"][0] = json!({"step_id": "one", "action": "wait", "milliseconds": 10});
        shaped["secrets"] = document["secrets"].clone();
        refused_before_starting(&shaped, &[("REA_TEST_UNUSED", "value-1234")])
    };
    let found = pointers(&refusals);
    for pointer in [
        "/actions/1/step_id",
        "/actions/1/value/secret_id",
        "/actions/2/destination/url",
        "/secrets/0",
        "/secrets/1",
        "/secrets/1/environment_variable",
    ] {
        assert!(found.contains(&pointer), "{pointer} in {found:?}");
    }
    assert_eq!(refusals.len(), 6, "{refusals:?}");
}

#[test]
fn raw_credentials_in_urls_and_scenario_text_are_refused() {
    let mut document = base();
    document["start_url"]["url"] = json!("http://admin:hunter2@127.0.0.1:9/");
    let (_, refusals) = refused_before_starting(&document, &[]);
    assert_eq!(pointers(&refusals), ["/start_url/url"]);
    let mut document = base();
    document["secrets"] = json!([{"secret_id": "pw", "environment_variable": "REA_TEST_PW"}]);
    document["actions"] = json!([
        {"step_id": "fill", "action": "fill", "locator": {"kind": "css", "selector": "#pw"},
         "value": {"source": "secret", "secret_id": "pw"}},
        {"step_id": "leak", "action": "goto",
         "destination": {"url": "http://127.0.0.1:9/?password=hunter2-secret", "query": []}}
    ]);
    let (run, refusals) = refused_before_starting(&document, &[("REA_TEST_PW", "hunter2-secret")]);
    assert_eq!(pointers(&refusals), ["/actions/1/destination/url"]);
    assert!(!run.stderr.contains("hunter2-secret"));
}

#[test]
fn a_missing_executable_and_a_capture_without_what_tools_need_are_refused() {
    let mut document = base();
    document["browser"]["executable_path"] = json!("/nonexistent/chromium");
    let (_, refusals) = refused_before_starting(&document, &[]);
    assert_eq!(pointers(&refusals), ["/browser/executable_path"]);
    let mut document = base();
    document["capture"]["network"]["response_body"] = json!(false);
    document["capture"]["network"]["header_values"] = json!(false);
    let (_, refusals) = refused_before_starting(&document, &[]);
    // contract: SCENARIO-018
    assert_eq!(pointers(&refusals), ["/capture/network"]);
    let mut document = base();
    document["capture"]["events"] = json!([]);
    let (_, refusals) = refused_before_starting(&document, &[]);
    // contract: SCENARIO-002
    assert_eq!(pointers(&refusals), ["/capture/events"]);
}

/// The pid of the running capture's Chromium (its main process leads the browser's group).
fn browser_of(dir: &Path, run: &mut Child) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(
            run.try_wait().unwrap().is_none(),
            "rea ended before the browser started"
        );
        for pid in processes_naming(&dir.join("tmp")) {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline);
            if cmdline.contains("--remote-debugging-port=0") && !cmdline.contains("--type=") {
                return pid;
            }
        }
        assert!(Instant::now() < deadline, "no browser started");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The processes of a process group.
fn group_members(group: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the command name (which may hold spaces, inside parentheses).
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        if fields.get(2).and_then(|field| field.parse::<u32>().ok()) == Some(group) {
            members.push(pid);
        }
    }
    members
}

fn assert_clean(dir: &Path, group: Option<u32>) {
    if let Some(group) = group {
        // The browser's whole process group is gone.
        assert!(
            group_members(group).is_empty(),
            "left: {:?}",
            group_members(group)
        );
    }
    assert!(processes_naming(&dir.join("tmp")).is_empty());
    let left = profiles_left(&dir.join("tmp"));
    assert!(left.is_empty(), "{left:?}");
}

fn waiting(start: &str, milliseconds: u64) -> Value {
    scenario(
        start,
        json!([{"step_id": "linger", "action": "wait", "milliseconds": milliseconds}]),
    )
}

#[test]
fn a_killed_browser_is_refused_and_leaves_nothing_behind() {
    let app = json_server(&[]);
    let dir = tempfile::tempdir().unwrap();
    let mut run = spawn_capture(
        dir.path(),
        &waiting(&format!("{}/db", app.origin()), 60_000),
        &[],
    );
    let browser = browser_of(dir.path(), &mut run);
    // Killed once it shows the page (a renderer runs), so mid-recording.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !processes_naming(&dir.path().join("tmp")).iter().any(|pid| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains("--type=renderer"))
    }) {
        assert!(Instant::now() < deadline, "no renderer started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(1));
    signal_process(browser, "KILL");
    let run = finish(run);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let refusal = &run.refusals()[0];
    assert_eq!(refusal["code"], "browser_unavailable", "{refusal}");
    assert!(
        refusal["message"].as_str().unwrap().contains("exited"),
        "{refusal}"
    );
    assert_clean(dir.path(), Some(browser));
}

#[test]
fn sigint_and_sigterm_close_the_browser_and_delete_the_profile() {
    let app = json_server(&[]);
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let dir = tempfile::tempdir().unwrap();
        let mut run = spawn_capture(
            dir.path(),
            &waiting(&format!("{}/db", app.origin()), 60_000),
            &[],
        );
        let browser = browser_of(dir.path(), &mut run);
        std::thread::sleep(Duration::from_secs(2));
        signal_process(run.id(), signal);
        let run = finish(run);
        assert_eq!(run.code, Some(code), "{}", run.stderr);
        let refusal = &run.refusals()[0];
        assert_eq!(refusal["code"], "cancelled");
        assert_eq!(refusal["data"]["signal"], format!("SIG{signal}"));
        assert_clean(dir.path(), Some(browser));
    }
}

#[test]
fn a_page_that_never_loads_is_refused_at_the_step_deadline() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accepts connections and never answers.
    let held = std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming().take(4) {
            open.push(stream);
        }
        std::thread::sleep(Duration::from_secs(30));
    });
    let dir = tempfile::tempdir().unwrap();
    let mut document = waiting(&format!("http://127.0.0.1:{port}/"), 10);
    document["timeouts"] = json!({"step_ms": 2000});
    let started = Instant::now();
    let mut run = spawn_capture(dir.path(), &document, &[]);
    let browser = browser_of(dir.path(), &mut run);
    let run = finish(run);
    assert!(started.elapsed() < Duration::from_secs(25));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let refusal = &run.refusals()[0];
    assert_eq!(refusal["code"], "step_failed", "{refusal}");
    assert_eq!(refusal["pointer"], "/start_url/url");
    assert!(
        refusal["message"].as_str().unwrap().contains("2000 ms"),
        "{refusal}"
    );
    assert_clean(dir.path(), Some(browser));
    drop(held);
}

#[test]
fn a_connect_port_with_nothing_listening_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut document = waiting("http://127.0.0.1:9/", 10);
    document["browser"] = json!({"mode": "connect", "port": port});
    let run = capture(dir.path(), &document, &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let refusal = &run.refusals()[0];
    assert_eq!(refusal["code"], "browser_unavailable", "{refusal}");
    assert_eq!(refusal["pointer"], "/browser/port");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains(&port.to_string())
    );
    assert_clean(dir.path(), None);
}

/// A Chromium this test starts with a DevTools port, as a user would for connect mode.
fn own_browser(profile: &Path, port: u16) -> Child {
    use std::os::unix::process::CommandExt;
    let child = Command::new(chromium())
        .args(rea_browser::launch::CHROMIUM_FLAGS)
        .arg(format!("--remote-debugging-port={port}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the browser did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

#[test]
fn connect_mode_records_and_only_disconnects() {
    let app = json_server(&[]);
    let profile = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut browser = own_browser(profile.path(), port);
    let dir = tempfile::tempdir().unwrap();
    let mut document = scenario(
        &format!("{}/posts", app.origin()),
        json!([{"step_id": "one", "action": "request", "method": "GET", "path": "/posts/1",
                "expected_status": [200]}]),
    );
    document["browser"] = json!({"mode": "connect", "port": port});
    let run = capture(dir.path(), &document, &[]);
    let evidence = run.evidence();
    assert_eq!(evidence["container"]["browser"]["mode"], "connect");
    let paths: Vec<&str> = evidence["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|record| record["path"].as_str())
        .collect();
    assert!(
        paths.contains(&"/posts") && paths.contains(&"/posts/1"),
        "{paths:?}"
    );
    assert!(
        browser.try_wait().unwrap().is_none(),
        "the browser was closed"
    );
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    // SAFETY: the group this test created for the browser it started.
    unsafe {
        libc::kill(-(browser.id() as i32), libc::SIGKILL);
    }
    let _ = browser.wait();
}

#[test]
fn a_temporary_folder_too_deep_for_the_browser_sockets_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("d".repeat(90));
    std::fs::create_dir_all(&deep).unwrap();
    let run = crate::browser_support::capture_in(
        dir.path(),
        &deep,
        &waiting("http://127.0.0.1:9/", 10),
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let refusal = &run.refusals()[0];
    assert_eq!(refusal["code"], "browser_unavailable");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("set TMPDIR to a shorter folder")
    );
    assert!(profiles_left(&deep).is_empty());
}

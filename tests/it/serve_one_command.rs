//! `rea serve INPUT` (issue 14): one command from a HAR, capture Evidence or a bundle folder to a
//! served environment, the addresses and the coverage table on stdout, the same catalog and
//! answers as the long form; a HAR saved as `.json`, another extension and a folder that is no
//! bundle refused with what to do instead (a browser scenario: `browser_serve`); the README's quick
//! start as written; a long HAR's progress on stderr.

use std::path::Path;
use std::process::Command;

use crate::bundle_support::{har, report, run};
use crate::serve_support::process::{Server, binary, card, tools_list};
use crate::serve_support::synthetic::{LARGE_HAR_BYTES, large_har};
use serde_json::{Value, json};

/// Starts `rea serve` with these arguments on an ephemeral port in `dir`.
fn serve(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
    let mut command = Command::new(binary());
    command.arg("serve").args(args).args(["--port", "0"]);
    Server::spawn_in(command, dir, env)
}

/// Stops a server with SIGTERM: exit 143 and its stdout.
fn stop(server: Server) -> String {
    server.signal("TERM");
    let (code, stdout, stderr) = server.finish();
    assert_eq!(code, Some(143), "stderr: {stderr:?}");
    stdout
}

#[test]
fn a_har_is_served_in_one_command_with_its_addresses_and_coverage_table() {
    let dir = tempfile::tempdir().expect("temp dir");
    let har_path = har("json-server");
    let har = har_path.display().to_string();
    let built = report(&run(
        dir.path(),
        &["environment-build", &har, "--dry-run", "--json", "-q"],
    ));
    let mut server = serve(dir.path(), &[&har], &[]);
    let url = server.url();
    let base = url.trim_end_matches("/mcp").to_owned();
    // Named as the build names it: the folder of a generically named capture.
    assert_eq!(card(&url)["name"], built["name"]);
    assert_eq!(card(&url)["name"], "json-server");
    let tools = tools_list(&url);
    assert_eq!(tools.len() as u64, built["tool_count"].as_u64().unwrap());
    let stdout = stop(server);
    let coverage = &built["coverage"];
    for needle in [
        format!("serving json-server: {} tools, from the state", tools.len()),
        format!("  MCP     {url}"),
        format!("  card    {base}/.well-known/agent-env.json"),
        format!("  status  {base}/"),
        format!(
            "coverage: reads {} from the state, {} from recordings",
            coverage["reads"]["state"], coverage["reads"]["recorded"]
        ),
        "stopped (SIGTERM): json-server".to_owned(),
    ] {
        assert!(stdout.contains(&needle), "{needle}\n{stdout}");
    }
    for withheld in coverage["writes"]["withheld"].as_array().unwrap() {
        assert!(
            stdout.contains(withheld["hint"].as_str().unwrap()),
            "{stdout}"
        );
    }
}

#[test]
fn a_bundle_folder_is_served_under_the_bundle_name_as_the_long_form_serves_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let har = har("kinto").display().to_string();
    let built = run(
        dir.path(),
        &[
            "environment-build",
            &har,
            "bundle",
            "--name",
            "my-kinto",
            "-q",
        ],
    );
    assert_eq!(built.code, Some(0), "{}", built.stderr);
    let mut short = serve(dir.path(), &["bundle"], &[]);
    let short_url = short.url();
    // The card shows the bundle's name, not the manifest's (an address for a loopback origin).
    assert_eq!(card(&short_url)["name"], "my-kinto");
    let env = dir.path().join("bundle/envs/my-kinto");
    let mut long = Server::start_in(
        &env,
        &[
            "manifest.json",
            "--evidence",
            "evidence.json",
            "--pipeline",
            "pipeline.toml",
        ],
    );
    let long_url = long.url();
    let strip_name = |mut card: Value| {
        card["name"] = Value::Null;
        card
    };
    assert_eq!(
        strip_name(card(&short_url)),
        strip_name(card(&long_url)),
        "the same card"
    );
    assert_eq!(tools_list(&short_url), tools_list(&long_url));
    // The env folder itself is a bundle too.
    let mut env_server = serve(&env, &["."], &[]);
    let env_url = env_server.url();
    assert_eq!(card(&env_url)["name"], "my-kinto");
    // ENVIRONMENT_NAME still renames it.
    let mut renamed = serve(dir.path(), &["bundle"], &[("ENVIRONMENT_NAME", "other")]);
    let renamed_url = renamed.url();
    assert_eq!(card(&renamed_url)["name"], "other");
    for server in [short, long, env_server, renamed] {
        server.signal("TERM");
        assert_eq!(server.finish().0, Some(143));
    }
}

/// Builds a shared capture into `dir/NAME` named NAME; returns the env folder.
fn build_bundle(dir: &Path, name: &str) -> std::path::PathBuf {
    let capture = har(name).display().to_string();
    let built = run(
        dir,
        &["environment-build", &capture, name, "--name", name, "-q"],
    );
    assert_eq!(built.code, Some(0), "{}", built.stderr);
    dir.join(name).join("envs").join(name)
}

/// Serves a bundle folder and stops it: its stderr.
fn serve_bundle_log(dir: &Path, bundle: &str) -> String {
    let mut server = serve(dir, &[bundle], &[("REA_LOG_LEVEL", "info")]);
    assert!(!tools_list(&server.url()).is_empty());
    server.signal("TERM");
    let (code, _, stderr) = server.finish();
    let stderr = stderr.join("\n");
    assert_eq!(code, Some(143), "{stderr}");
    stderr
}

#[test]
fn a_bundle_folder_serves_its_precomputed_state_unless_it_is_not_its_own() {
    let dir = tempfile::tempdir().expect("temp dir");
    let env = build_bundle(dir.path(), "json-server");
    let log = serve_bundle_log(dir.path(), "json-server");
    assert!(
        log.contains("the state is read from the precomputed file"),
        "{log}"
    );
    assert!(!log.contains("deriving the state"), "{log}");
    // Another capture's state.json: not used, the state is derived, saying why.
    let other = build_bundle(dir.path(), "kinto");
    std::fs::copy(other.join("state.json"), env.join("state.json")).unwrap();
    let log = serve_bundle_log(dir.path(), "json-server");
    assert!(log.contains("the precomputed state is not used"), "{log}");
    assert!(
        log.contains("it was derived from a capture Evidence file of SHA-256"),
        "{log}"
    );
    assert!(!log.contains("read from the precomputed file"), "{log}");
    // --replay-only reads no state at all.
    let mut replay = serve(dir.path(), &["json-server", "--replay-only"], &[]);
    assert!(!tools_list(&replay.url()).is_empty());
    replay.signal("TERM");
    let (code, _, stderr) = replay.finish();
    assert_eq!(code, Some(143));
    assert!(!stderr.join("\n").contains("precomputed"), "{stderr:?}");
}

#[test]
fn capture_evidence_is_served_and_json_prints_documents() {
    let dir = tempfile::tempdir().expect("temp dir");
    let inspected = run(
        dir.path(),
        &[
            "inspect-web-network-capture",
            &har("mlflow").display().to_string(),
            "har",
        ],
    );
    assert_eq!(inspected.code, Some(0));
    std::fs::write(dir.path().join("mlflow.capture.json"), &inspected.stdout).unwrap();
    let mut server = serve(dir.path(), &["mlflow.capture.json", "--json"], &[]);
    let url = server.url();
    assert_eq!(card(&url)["name"], "mlflow");
    let stdout = stop(server);
    let mut documents = serde_json::Deserializer::from_str(&stdout).into_iter::<Value>();
    let listening = documents.next().unwrap().unwrap();
    assert_eq!(listening["status"], "listening");
    assert_eq!(listening["url"], url.as_str());
    assert!(
        listening["coverage"]["reads"]["state"].is_u64(),
        "{listening}"
    );
    let stopped = documents.next().unwrap().unwrap();
    assert_eq!(stopped["status"], "stopped");
    assert_eq!(stopped["signal"], "SIGTERM");
}

#[test]
fn what_cannot_be_served_is_refused_with_what_to_do_instead() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "saved.json",
        r#"{"log": {"version": "1.2", "entries": []}}"#,
    );
    write("notes.txt", "hello");
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    // An input kind rea does not read and a missing file are usage mistakes (exit 2); a folder
    // that is no bundle is a refused input (exit 1).
    for (input, needle, exit) in [
        ("saved.json", "name it .har", 2),
        ("notes.txt", ".har file", 2),
        ("empty", "rea environment-build", 1),
        ("missing.har", "no such file", 2),
    ] {
        let refused = run(dir.path(), &["serve", input, "--port", "0"]);
        assert_eq!(refused.code, Some(exit), "{input}: {}", refused.stderr);
        assert!(refused.stdout.is_empty(), "{input}: {}", refused.stdout);
        assert!(
            refused.stderr.contains(needle),
            "{input}: {}",
            refused.stderr
        );
        assert!(
            !refused.stderr.contains("MCP transport listening"),
            "{input}: nothing listens"
        );
    }
}

#[test]
fn a_long_har_logs_the_share_read_before_listening_and_quiet_leaves_it_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    let har = dir.path().join("large.har");
    large_har(&har, LARGE_HAR_BYTES);
    let size = std::fs::metadata(&har).unwrap().len();
    let har = har.display().to_string();
    let progress = |server: &Server| -> Vec<Value> {
        server
            .stderr
            .iter()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|line| line["msg"] == "progress" && line["stage"] == "inspect")
            .collect()
    };

    // The quiet second is forced to nothing (a test hook): this machine may read the capture in
    // less than a second.
    let quick = [("REA_TEST_QUIET_PERIOD_MS", "0")];
    let mut server = serve(dir.path(), &[&har], &quick);
    server.url();
    let lines = progress(&server);
    assert!(lines.len() >= 2, "{:?}", server.stderr);
    for line in &lines {
        assert_eq!(line["total_bytes"], size, "{line}");
    }
    let last = lines.last().unwrap();
    assert_eq!(
        (&last["bytes"], &last["percent"]),
        (&json!(size), &json!(100))
    );
    stop(server);

    let mut quiet = serve(dir.path(), &[&har, "--quiet"], &quick);
    quiet.url();
    assert_eq!(progress(&quiet), Vec::<Value>::new(), "--quiet");
    stop(quiet);
}

#[test]
fn the_readme_quick_start_serves_the_example_capture_as_written() {
    let root = rea_tests::workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let quick_start = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|block| block.lines().next())
        .expect("README's first sh block");
    let serve_args = quick_start
        .split("&& rea ")
        .nth(1)
        .expect("the quick start installs, then runs rea");
    assert_eq!(serve_args, "serve examples/captures/json-server.har");
    let args: Vec<&str> = serve_args.split(' ').skip(1).collect();
    // Run from the clone's root, as the README's relative path reads.
    let mut server = serve(&root, &args, &[]);
    let url = server.url();
    assert_eq!(card(&url)["name"], "json-server");
    let tools = tools_list(&url);
    assert!(!tools.is_empty());
    let stdout = stop(server);
    for needle in [
        format!("serving json-server: {} tools, from the state", tools.len()),
        format!("  MCP     {url}"),
        "coverage: reads ".to_owned(),
    ] {
        assert!(stdout.contains(&needle), "{needle}\n{stdout}");
    }
}

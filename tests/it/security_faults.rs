//! Issue 15: faults. A rule stage that hangs is bounded by the per-call deadline and one that
//! answers 100 MB is refused unread, both reported by the build (a panicking one:
//! `security_pipeline_checks.rs`); a write that fails because the file system refuses more bytes
//! (`RLIMIT_FSIZE` in the child) or because the disk is full (a 4 MiB tmpfs in a private mount
//! namespace) leaves no bundle;
//! running out of descriptors while building refuses cleanly (the server's `EMFILE`:
//! `serve_lifecycle.rs`, LIMITS-020/021); a client killed mid-request costs the server nothing.

use crate::bundle_support;
use crate::security_build_signals::refusal_line;
use crate::security_serve_limits::exchange;
use crate::serve_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use bundle_support::{har, rea, snapshot, stand_in_binary};
use rea_tests::built_library;
use serde_json::Value;
use serve_support::process::{Server, address};

/// An 8 MiB file to bundle as `bin/rea` (over what the faulty file systems below take).
fn large_binary(work: &Path) -> PathBuf {
    let binary = work.join("rea-large");
    let mut file = std::fs::File::create(&binary).expect("create");
    file.write_all(b"#!/bin/sh\n").expect("write");
    file.write_all(&vec![b'#'; 8 * 1024 * 1024]).expect("write");
    binary
}

/// `environment-build` of the tiddlywiki capture into `bundle`, bundling `binary`, appended to a
/// command that prepares the process (a shell setting a limit, a namespace).
fn build_bundle(mut command: Command, binary: &Path) -> Command {
    let har = har("tiddlywiki");
    command
        .arg(rea())
        .arg("environment-build")
        .arg(har)
        .args(["bundle", "--name", "wiki", "--binary"]);
    command.arg(binary).arg("--json");
    command
}

/// A refusal's message, asserted to be the write refusal that removed its staging folder.
fn write_refusal(stderr: &[String]) -> String {
    let refusal = refusal_line(stderr);
    assert_eq!(refusal["code"], "write_failed", "{refusal}");
    assert_eq!(refusal["data"]["removed"], true, "{refusal}");
    refusal["message"].as_str().unwrap_or_default().to_owned()
}

/// A dry-run build of the json-server capture with these rule stages before `clock`; the
/// `rule-stage-failed` warning's items.
fn build_with_stages(stages: &[&str], deadline: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let library = built_library("rea_fixture_misbehaving_stage");
    let rules: String = stages
        .iter()
        .map(|stage| format!("[[rules]]\nstage = \"{stage}\"\n\n"))
        .collect();
    std::fs::write(
        dir.path().join("pipeline.toml"),
        format!(
            "[[plugins]]\npath = \"{}\"\n\n[capture.extractors]\nhar = \"har\"\n\n{rules}[[rules]]\nstage = \"clock\"\n",
            library.display()
        ),
    )
    .expect("pipeline written");
    let har = har("json-server").display().to_string();
    let mut command = Command::new(rea());
    command.args([
        "environment-build",
        har.as_str(),
        "--dry-run",
        "--json",
        "--name",
        "faults",
        "--pipeline",
        "pipeline.toml",
    ]);
    command
        .current_dir(dir.path())
        .env("REA_PLUGIN_DEADLINE_SECONDS", deadline)
        .env_remove("REA_LOG_LEVEL")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().expect("rea runs");
    // Far beyond what the bounded stages cost on a loaded machine; reaching it means a hang.
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(600) {
            let _ = child.kill();
            panic!("the build did not end");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("output");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    println!("the build with {stages:?} took {:?}", started.elapsed());
    let report: Value = serde_json::from_str(&stdout).expect("the report");
    let warning = report["warnings"]
        .as_array()
        .and_then(|warnings| warnings.iter().find(|w| w["code"] == "rule-stage-failed"))
        .unwrap_or_else(|| panic!("no rule-stage-failed warning: {}", report["warnings"]));
    warning["items"].to_string()
}

#[test]
fn a_rule_stage_that_hangs_is_bounded_by_the_per_call_deadline_and_reported() {
    let items = build_with_stages(&["fixture-hangs"], "1");
    assert!(
        items.contains("fixture-hangs") && items.contains("did not answer within 1 s"),
        "{items}"
    );
}

#[test]
fn a_rule_stage_that_answers_100_mb_is_refused_unread_and_reported() {
    let items = build_with_stages(&["fixture-floods"], "60");
    assert!(
        items.contains("fixture-floods") && items.contains("over the 16777216 bytes"),
        "{items}"
    );
}

#[test]
fn a_file_system_refusing_more_bytes_mid_write_leaves_no_bundle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = dir.path();
    // A bundled binary of 8 MiB, over the 1 MiB the child may write to any one file.
    let binary = large_binary(work);
    stand_in_binary(work);
    let before = snapshot(work);
    // dash's `ulimit -f` counts 512-byte blocks; SIGXFSZ ignored makes the write fail with EFBIG.
    let mut shell = Command::new("sh");
    shell.args(["-c", r#"trap '' XFSZ; ulimit -f 2048 && exec "$0" "$@""#]);
    let command = build_bundle(shell, &binary);
    let (code, stdout, stderr) = Server::spawn_in(command, work, &[]).finish();
    assert_eq!(code, Some(1), "{stderr:?}");
    assert!(stdout.is_empty(), "{stdout}");
    let message = write_refusal(&stderr);
    assert!(message.contains("bin/rea"), "{message}");
    assert!(
        snapshot(work) == before,
        "no bundle and no staging folder are left"
    );
}

/// The shell that mounts a tmpfs of `SIZE` at `$1` in a private mount namespace (root's own, or
/// a user namespace's where unprivileged), runs the command after it, then lists what the tmpfs
/// holds on stdout after a `--- left:` line (the mount ends with the namespace).
const IN_SMALL_TMPFS: &str = r#"mount -t tmpfs -o size=$SIZE tmpfs "$1" || exit 97
cd "$1" || exit 97
shift
"$@"
code=$?
echo "--- left:"
ls -A
exit $code"#;

#[test]
fn a_full_disk_mid_write_leaves_no_bundle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = dir.path();
    // A bundled binary of 8 MiB on a tmpfs of 4 MiB: the copy into bin/rea meets ENOSPC.
    let binary = large_binary(work);
    let disk = work.join("disk");
    std::fs::create_dir(&disk).expect("mount point");
    // As root a private mount namespace is enough; elsewhere a user namespace grants the mount.
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(1) == Some("0"));
    let mut unshare = Command::new("unshare");
    unshare.arg(if root { "-m" } else { "-rm" });
    unshare.args(["sh", "-c", IN_SMALL_TMPFS, "sh"]).arg(&disk);
    let command = build_bundle(unshare, &binary);
    let (code, stdout, stderr) = Server::spawn_in(command, work, &[("SIZE", "4m")]).finish();
    assert_ne!(code, Some(97), "no tmpfs could be mounted here: {stderr:?}");
    assert_eq!(code, Some(1), "{stdout} {stderr:?}");
    let message = write_refusal(&stderr);
    assert!(message.contains("No space left on device"), "{message}");
    let (report, left) = stdout.split_once("--- left:").expect("the listing");
    assert!(report.trim().is_empty(), "no report on a refusal: {report}");
    assert_eq!(
        left.trim(),
        "",
        "the full disk holds no bundle and no staging folder"
    );
}

#[test]
fn running_out_of_descriptors_while_building_refuses_and_leaves_nothing() {
    // At each descriptor limit the build either completes or refuses with a structured refusal
    // (never a panic or a signal), and a refused build leaves nothing; some limit must refuse.
    let mut refused = Vec::new();
    for limit in 5..=12 {
        let dir = tempfile::tempdir().expect("tempdir");
        let work = dir.path();
        let stand_in = stand_in_binary(work);
        let before = snapshot(work);
        let mut shell = Command::new("sh");
        shell.args(["-c", &format!(r#"ulimit -n {limit} && exec "$0" "$@""#)]);
        let command = build_bundle(shell, &stand_in);
        let (code, _, stderr) = Server::spawn_in(command, work, &[]).finish();
        match code {
            Some(0) => assert!(work.join("bundle/envs/wiki/bin/rea").is_file(), "{limit}"),
            Some(1) => {
                let refusal = refusal_line(&stderr);
                assert!(
                    refusal["message"]
                        .as_str()
                        .unwrap_or_default()
                        .contains("Too many open files"),
                    "{limit}: {refusal}"
                );
                assert!(
                    snapshot(work) == before,
                    "{limit}: something was left: {stderr:?}"
                );
                refused.push(limit);
            }
            other => panic!("limit {limit}: exit {other:?} (a panic or a signal): {stderr:?}"),
        }
    }
    assert!(
        !refused.is_empty(),
        "no descriptor limit made the build refuse"
    );
    println!("the build refused cleanly at descriptor limits {refused:?}");
}

#[test]
fn a_client_killed_mid_request_costs_the_server_nothing() {
    let mut server = Server::json_server(&[]);
    let address = address(&server.url());
    for path in ["/mcp", "/agentenv"] {
        for _ in 0..20 {
            let mut stream = std::net::TcpStream::connect(&address).expect("connect");
            let head = format!(
                "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: 4096\r\n\r\n{{\"jsonrpc\":"
            );
            stream.write_all(head.as_bytes()).expect("write");
            drop(stream);
        }
    }
    // A reader that leaves in the middle of a large answer.
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#;
    for _ in 0..20 {
        let mut stream = std::net::TcpStream::connect(&address).expect("connect");
        let request = format!(
            "POST /agentenv HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("write");
        let _ = stream.shutdown(std::net::Shutdown::Both);
    }
    std::thread::sleep(Duration::from_millis(300));
    let request = format!(
        "POST /agentenv HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (status, _, answer) = exchange(&address, request.as_bytes());
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("rea_state"), "{answer}");
    server.signal("TERM");
    let (code, _, stderr) = server.finish();
    assert_eq!(code, Some(143), "{stderr:?}");
    assert!(
        !stderr
            .iter()
            .any(|line| line.contains("panicked") || line.contains("\"level\":\"error\"")),
        "{stderr:?}"
    );
}

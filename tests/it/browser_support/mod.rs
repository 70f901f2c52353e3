//! Helpers of the browser-scenario tests: Debian's Chromium, the test kit (json-server, Jupyter
//! Server, the corpus kit's mitmproxy, installed once by `tests/browser/setup.sh`), applications
//! started on free loopback ports and stopped by pid, runs of `rea capture-browser-scenario` with
//! a temporary folder of their own (so the browser profile lives there), and what a run left
//! behind (processes whose command line names that folder).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use rea_tests::{shared_dir, workspace_root};
use serde_json::{Value, json};

use crate::serve_support::process::{binary, free_port};

/// Debian's Chromium, which `.ci/run` installs.
pub fn chromium() -> PathBuf {
    let path = PathBuf::from("/usr/bin/chromium");
    assert!(
        path.is_file(),
        "{} is missing: install Debian's `chromium` (apt-get install chromium; .ci/run does)",
        path.display()
    );
    path
}

/// The installed test kit (installed on first use).
pub fn kit() -> &'static Path {
    static KIT: OnceLock<PathBuf> = OnceLock::new();
    KIT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-kit");
        if !dir.join("ready").is_file() {
            let status = Command::new("bash")
                .arg(workspace_root().join("tests/browser/setup.sh"))
                .arg(&dir)
                .env("REA_SHARED_DIR", shared_dir())
                .status()
                .expect("tests/browser/setup.sh runs");
            assert!(status.success(), "tests/browser/setup.sh failed");
        }
        dir
    })
}

/// A process this test started, stopped (its whole process group) when dropped.
pub struct App {
    child: Child,
    /// The loopback port it listens on.
    pub port: u16,
    /// Its working folder.
    pub dir: tempfile::TempDir,
}

impl App {
    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Starts it and waits until `ready` answers (or, with `None`, until the port accepts a
    /// connection: a recorder must not record the wait).
    fn start(mut command: Command, port: u16, dir: tempfile::TempDir, ready: Option<&str>) -> Self {
        use std::os::unix::process::CommandExt;
        let log = std::fs::File::create(dir.path().join("app.log")).unwrap();
        command
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0);
        let child = command.spawn().expect("the application starts");
        let mut app = Self { child, port, dir };
        app.wait_ready(ready);
        app
    }

    fn wait_ready(&mut self, path: Option<&str>) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                let log =
                    std::fs::read_to_string(self.dir.path().join("app.log")).unwrap_or_default();
                panic!("the application exited ({status}): {log}");
            }
            let answered = match path {
                Some(path) => get(self.port, path).is_some(),
                None => std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok(),
            };
            if answered {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "the application did not answer {path:?} on port {}",
            self.port
        );
    }

    /// Stops it (SIGINT to its group, then SIGKILL) and waits for it.
    pub fn stop(&mut self) {
        signal_group(self.child.id(), libc::SIGINT);
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        signal_group(self.child.id(), libc::SIGKILL);
        let _ = self.child.wait();
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            signal_group(self.child.id(), libc::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

fn signal_group(pid: u32, signal: i32) {
    // SAFETY: the group is the one this test created for the process it started.
    unsafe {
        libc::kill(-(pid as i32), signal);
    }
}

/// A plain `GET` on loopback: the status and body, or `None` when nothing answered.
pub fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())?;
    Some((status, body))
}

/// json-server 0.17.4 on a free port, from the shared seed, with its own homepage and these
/// extra static files (`public/` replaces the packaged one, so its files are copied in too).
pub fn json_server(extra: &[(&str, Vec<u8>)]) -> App {
    let package = kit().join("json-server");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(package.join("seed/db.json"), dir.path().join("db.json")).unwrap();
    let public = dir.path().join("public");
    std::fs::create_dir(&public).unwrap();
    let packaged = package.join("node_modules/json-server/public");
    for entry in std::fs::read_dir(&packaged).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), public.join(entry.file_name())).unwrap();
    }
    for (name, bytes) in extra {
        std::fs::write(public.join(name), bytes).unwrap();
    }
    let port = free_port();
    let mut command = Command::new("node");
    command
        .arg(package.join("node_modules/json-server/lib/cli/bin.js"))
        .args([
            "db.json",
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
        ]);
    App::start(command, port, dir, Some("/db"))
}

/// Jupyter Server on a free port, signing in with `password` through its `/login` form (the
/// form carries an `_xsrf` field matching the `_xsrf` cookie), its notebook folder empty.
pub fn jupyter(password: &str) -> App {
    let venv = kit().join("jupyter");
    let dir = tempfile::tempdir().unwrap();
    let hashed = Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import sys; from jupyter_server.auth import passwd; print(passwd(sys.argv[1]))",
            password,
        ])
        .output()
        .expect("hashes the password");
    assert!(hashed.status.success());
    let hashed = String::from_utf8(hashed.stdout).unwrap();
    for folder in ["notebooks", "runtime"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
    }
    let port = free_port();
    let mut command = Command::new(venv.join("bin/jupyter-server"));
    let runtime = dir.path().join("runtime");
    command
        .env("JUPYTER_RUNTIME_DIR", &runtime)
        .env("JUPYTER_DATA_DIR", &runtime)
        .env("JUPYTER_CONFIG_DIR", &runtime)
        .env("HOME", dir.path())
        .args([
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            &format!("--ServerApp.port={port}"),
            "--ServerApp.port_retries=0",
            "--ServerApp.open_browser=False",
            &format!(
                "--ServerApp.root_dir={}",
                dir.path().join("notebooks").display()
            ),
            "--IdentityProvider.token=",
            &format!(
                "--PasswordIdentityProvider.hashed_password={}",
                hashed.trim()
            ),
            "--PasswordIdentityProvider.allow_password_change=False",
        ]);
    App::start(command, port, dir, Some("/login"))
}

/// mitmproxy (the corpus kit's `mitmdump`) as a reverse proxy in front of `upstream`, writing
/// the session's HAR when it stops. The browser talks to it as to the application.
pub fn recorder(upstream: &App) -> (App, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("session.har");
    let port = free_port();
    kit();
    let mut command = Command::new(workspace_root().join("tests/corpus/kit/.venv/bin/mitmdump"));
    command.args([
        "--mode",
        &format!("reverse:{}", upstream.origin()),
        "--listen-host",
        "127.0.0.1",
        "-p",
        &port.to_string(),
        "--set",
        &format!("hardump={}", har.display()),
        "--set",
        "keep_host_header=true",
        "--set",
        "connection_strategy=lazy",
        "--set",
        "termlog_verbosity=warn",
        "--set",
        "flow_detail=0",
    ]);
    let app = App::start(command, port, dir, None);
    (app, har)
}

/// What one run of `rea capture-browser-scenario` gave.
pub struct Capture {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Capture {
    /// The Evidence printed on stdout.
    pub fn evidence(&self) -> Value {
        assert_eq!(self.code, Some(0), "stderr: {}", self.stderr);
        serde_json::from_str(&self.stdout).expect("the Evidence is JSON")
    }

    /// The refusal lines printed on stderr.
    pub fn refusals(&self) -> Vec<Value> {
        self.stderr
            .lines()
            .filter(|line| line.starts_with('{'))
            .map(|line| serde_json::from_str(line).expect("a JSON refusal line"))
            .collect()
    }
}

/// Writes `scenario` into `dir` and starts the command on it with these environment variables and
/// `TMPDIR=dir/tmp`.
pub fn spawn_capture(dir: &Path, scenario: &Value, env: &[(&str, &str)]) -> Child {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    spawn_capture_in(dir, &tmp, scenario, env)
}

/// [`capture`] with its temporary folder (`TMPDIR`) at `tmp`.
pub fn capture_in(dir: &Path, tmp: &Path, scenario: &Value, env: &[(&str, &str)]) -> Capture {
    finish(spawn_capture_in(dir, tmp, scenario, env))
}

fn spawn_capture_in(dir: &Path, tmp: &Path, scenario: &Value, env: &[(&str, &str)]) -> Child {
    std::fs::write(
        dir.join("scenario.json"),
        serde_json::to_vec_pretty(scenario).unwrap(),
    )
    .unwrap();
    let mut command = Command::new(binary());
    command
        .args([
            "capture-browser-scenario",
            "scenario.json",
            "--format",
            "json",
        ])
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    command.spawn().expect("rea starts")
}

/// Runs the command on `scenario` in `dir` (see [`spawn_capture`]) and waits for it.
pub fn capture(dir: &Path, scenario: &Value, env: &[(&str, &str)]) -> Capture {
    let child = spawn_capture(dir, scenario, env);
    finish(child)
}

/// Waits for a started capture.
pub fn finish(child: Child) -> Capture {
    let output = child.wait_with_output().expect("rea ends");
    Capture {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The processes whose command line names `folder` (a run's browser, with `--user-data-dir`
/// inside it).
pub fn processes_naming(folder: &Path) -> Vec<u32> {
    let needle = folder.display().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(&needle) {
            found.push(pid);
        }
    }
    found
}

/// What a run left in its temporary folder (the browser's profile and temporary files live
/// there).
pub fn profiles_left(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// A launch-mode scenario on `start` with these actions, selecting everything.
pub fn scenario(start: &str, actions: Value) -> Value {
    json!({
        "schema": "rea-browser-scenario/v1",
        "browser": {"mode": "launch", "executable_path": chromium().display().to_string()},
        "start_url": {"url": start, "query": []},
        "actions": actions,
        "capture": {
            "events": ["network"],
            "network": {"request_body": true, "response_body": true, "header_values": true}
        }
    })
}

/// Every file under `dir`, read (for greps).
pub fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((path, bytes));
            }
        }
    }
    out
}

/// Whether `haystack` contains `needle`.
pub fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

//! Launch mode's browser process: Chromium started headless with a temporary profile this
//! command owns, in a process group of its own, and everything it started ended and the profile
//! deleted when the recording ends, however it ends.
//!
//! Chromium writes its DevTools port to `DevToolsActivePort` in the profile once it listens
//! (`--remote-debugging-port=0` picks a free one, on loopback); the DevTools client then connects
//! to it as connect mode does. The process group is killed at the end (after a graceful close had
//! its chance), so no helper process outlives the command; a parent-death signal ends Chromium
//! even if this process is killed outright. In launch mode the browser resolves only the
//! scenario's hosts (`--host-resolver-rules`): every other name fails to resolve.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::BrowserError;

/// The flags Chromium runs with: headless, and nothing that reaches beyond the scenario
/// (background networking, component updates, sync, QUIC) or needs a display, a GPU or a sandbox
/// the process may not have (it may run as root).
pub const CHROMIUM_FLAGS: [&str; 16] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-breakpad",
    "--password-store=basic",
    "--use-mock-keychain",
    "--mute-audio",
];

/// What Chromium adds to its temporary folder for its singleton socket.
const SOCKET_SUFFIX: &str = "/org.chromium.Chromium.XXXXXX/SingletonSocket";
/// The longest Unix socket path (`sun_path` less its terminating zero).
const MAX_SOCKET_PATH: usize = 107;

/// A Chromium this command started.
#[derive(Debug)]
pub struct LaunchedBrowser {
    child: Child,
    /// The temporary folder holding the profile (and Chromium's log); deleted on drop.
    folder: Option<tempfile::TempDir>,
    profile: PathBuf,
}

impl LaunchedBrowser {
    /// Starts Chromium (call [`LaunchedBrowser::devtools_url`] next). `hosts` are the only host
    /// names it resolves. Call it on a thread that lives as long as the browser should: the
    /// parent-death signal follows the thread that started it.
    pub fn spawn(executable: &Path, hosts: &[String]) -> Result<Self, BrowserError> {
        let folder = tempfile::Builder::new()
            .prefix("rea-browser-")
            .tempdir()
            .map_err(|error| BrowserError::Launch(format!("no temporary profile: {error}")))?;
        let profile = folder.path().join("profile");
        std::fs::create_dir(&profile)
            .map_err(|error| BrowserError::Launch(format!("no temporary profile: {error}")))?;
        let log = std::fs::File::create(folder.path().join("chromium.log"))
            .map_err(|error| BrowserError::Launch(format!("no browser log: {error}")))?;
        // Chromium's own temporary files (its singleton socket among them) go inside the folder
        // too, so deleting it leaves nothing. A Unix socket path has at most 107 bytes.
        let scratch = folder.path().to_owned();
        let socket = scratch.as_os_str().len() + SOCKET_SUFFIX.len();
        if socket > MAX_SOCKET_PATH {
            return Err(BrowserError::Launch(format!(
                "the temporary folder {} is too deep for Chromium's sockets ({socket} of at most {MAX_SOCKET_PATH} bytes): set TMPDIR to a shorter folder",
                scratch.display()
            )));
        }
        let mut command = Command::new(executable);
        command
            .args(CHROMIUM_FLAGS)
            .arg("--remote-debugging-port=0")
            .arg("--remote-debugging-address=127.0.0.1")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--host-resolver-rules={}", resolver_rules(hosts)))
            .arg("about:blank")
            .env("TMPDIR", &scratch)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .process_group(0);
        // SAFETY: prctl is async-signal-safe; it only asks the kernel to signal the child when
        // this process dies.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().map_err(|error| {
            BrowserError::Launch(format!("{} did not start: {error}", executable.display()))
        })?;
        Ok(Self {
            child,
            folder: Some(folder),
            profile,
        })
    }

    /// The process id of Chromium's main process.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether Chromium's main process has exited (and how).
    pub fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(describe(status)),
            _ => None,
        }
    }

    /// Waits (within `timeout`) until Chromium listens; its DevTools WebSocket URL.
    pub async fn devtools_url(&mut self, timeout: Duration) -> Result<String, BrowserError> {
        let file = self.profile.join("DevToolsActivePort");
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.exited() {
                return Err(BrowserError::Launch(format!(
                    "the browser exited before it listened ({status}){}",
                    self.log_tail()
                )));
            }
            if let Ok(text) = std::fs::read_to_string(&file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    return Ok(format!("ws://127.0.0.1:{port}{path}"));
                }
            }
            if Instant::now() >= deadline {
                return Err(BrowserError::Launch(format!(
                    "the browser did not open its DevTools port within {} ms{}",
                    timeout.as_millis(),
                    self.log_tail()
                )));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    fn log_tail(&self) -> String {
        let Some(folder) = &self.folder else {
            return String::new();
        };
        let text = std::fs::read_to_string(folder.path().join("chromium.log")).unwrap_or_default();
        let lines: Vec<&str> = text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .collect();
        match lines.last() {
            Some(last) => format!("; its last log line: {}", last.trim()),
            None => String::new(),
        }
    }

    /// Ends every process of the browser's group, reaps Chromium and deletes the profile.
    /// `grace` is how long Chromium may take to exit by itself first (after a DevTools close).
    pub fn shut_down(mut self, grace: Duration) -> Result<(), BrowserError> {
        let deadline = Instant::now() + grace;
        while self.exited().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill_group();
        self.remove_profile()
    }

    fn kill_group(&mut self) {
        let group = self.child.id() as libc::pid_t;
        // SAFETY: a negative pid signals the process group this command created for Chromium
        // (`process_group(0)`), which only Chromium and its helpers belong to.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Helpers of the group may take a moment to go; wait until none is left.
        let deadline = Instant::now() + Duration::from_secs(5);
        while group_alive(group) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn remove_profile(&mut self) -> Result<(), BrowserError> {
        match self.folder.take() {
            Some(folder) => {
                let path = folder.path().to_owned();
                folder.close().map_err(|error| {
                    BrowserError::Cleanup(format!(
                        "the temporary profile {} was not removed: {error}",
                        path.display()
                    ))
                })
            }
            None => Ok(()),
        }
    }
}

impl Drop for LaunchedBrowser {
    fn drop(&mut self) {
        if self.folder.is_some() {
            self.kill_group();
            let _ = self.remove_profile();
        }
    }
}

/// Whether any process of the group is left (`kill(-group, 0)` finds one).
fn group_alive(group: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(-group, 0) == 0 }
}

/// `MAP * ~NOTFOUND` except the scenario's hosts (and loopback).
fn resolver_rules(hosts: &[String]) -> String {
    let mut rules = String::from("MAP * ~NOTFOUND");
    let mut excluded: Vec<&str> = hosts.iter().map(String::as_str).collect();
    excluded.extend(["localhost", "127.0.0.1"]);
    excluded.sort_unstable();
    excluded.dedup();
    for host in excluded {
        rules.push_str(", EXCLUDE ");
        rules.push_str(host);
    }
    rules
}

fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => status.to_string(),
    }
}

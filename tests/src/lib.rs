//! Shared helpers of rea's integration tests: where the workspace, the shared captures and the
//! built plugin libraries are.

pub mod fidelity;
pub mod fidelity_review;
pub mod fidelity_review_list;
pub mod golden;

use std::path::{Path, PathBuf};

/// The workspace root (the folder holding the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The shared folder beside the checkout (`../shared`), or `REA_SHARED_DIR` when set.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("REA_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("..").join("shared"),
    }
}

/// The path of a plugin library built by cargo as a dependency of this crate
/// (`crate_name` with underscores, such as `rea_plugin_har_cdylib`). Cargo writes dependency
/// cdylibs into `target/<profile>/deps/`, next to the running test binary.
pub fn built_library(crate_name: &str) -> PathBuf {
    let file = format!(
        "{}{crate_name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let exe = std::env::current_exe().unwrap_or_default();
    let mut candidates = Vec::new();
    if let Some(dir) = exe.parent() {
        candidates.push(dir.join(&file));
        if let Some(profile_dir) = dir.parent() {
            candidates.push(profile_dir.join(&file));
            candidates.push(profile_dir.join("deps").join(&file));
        }
    }
    candidates
        .iter()
        .find(|path| path.is_file())
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "{file} was not built: it must be a dev-dependency of rea-tests (looked in {candidates:?})"
            )
        })
}

/// The output of one run of the `rea` binary under test.
#[derive(Debug)]
pub struct Run {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs the `rea` binary under test with these arguments in `dir` and waits for it.
pub fn run_rea(binary: &Path, dir: &Path, args: &[&str]) -> Run {
    run_rea_with(binary, dir, args, &[])
}

/// [`run_rea`] with more environment variables.
pub fn run_rea_with(binary: &Path, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let output = std::process::Command::new(binary)
        .args(args)
        .current_dir(dir)
        .env_remove("REA_LOG_LEVEL")
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", binary.display()));
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The lines of `strace -f` output (`PID call(…)`) whose call is `name`; strace pads short pids
/// with extra spaces.
pub fn strace_calls<'a>(lines: &'a [String], name: &str) -> Vec<&'a String> {
    lines
        .iter()
        .filter(|line| {
            line.split_once(' ')
                .is_some_and(|(_, call)| call.trim_start().starts_with(&format!("{name}(")))
        })
        .collect()
}

/// Fails the calling test unless `strace` is installed and may trace here: tests that trace the
/// binary never skip themselves (`.ci/run` installs strace).
pub fn require_strace() {
    let traced = std::process::Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .status();
    assert!(
        traced.as_ref().is_ok_and(|status| status.success()),
        "this test needs strace, able to trace here (`.ci/run` installs it): {traced:?}"
    );
}

/// For a test that needs file permissions to apply (a read denial). Run by a user other than
/// root, returns `true`: the caller runs its body. Run as root, who reads any file, it re-runs
/// that one test (`test`, its path in the test binary, such as `module::name`) in this same
/// binary as an unprivileged user, `REA_UNPRIVILEGED_USER` (`.ci/run` creates `rea-ci`) or else
/// `nobody`, asserts the re-run ran exactly that test and passed, and returns `false`. The test
/// never skips its body.
#[cfg(unix)]
pub fn subject_to_permissions(test: &str) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let uid = std::fs::metadata("/proc/self").expect("/proc/self").uid();
    if uid != 0 {
        return true;
    }
    let user = std::env::var("REA_UNPRIVILEGED_USER").unwrap_or_else(|_| "nobody".to_owned());
    let id = |flag: &str| {
        let output = std::process::Command::new("id")
            .args([flag, &user])
            .output()
            .expect("id");
        assert!(output.status.success(), "no user {user} to drop to");
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    };
    let (uid, gid) = (id("-u"), id("-g"));
    assert_ne!(uid, "0", "{user} is root: permissions would not apply");
    let output = std::process::Command::new("setpriv")
        .args(["--reuid", &uid, "--regid", &gid, "--clear-groups", "--"])
        .arg(std::env::current_exe().expect("the test binary"))
        .args([test, "--exact", "--test-threads=1"])
        .output()
        .expect("setpriv (util-linux)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{test} as {user} ({uid}:{gid}): {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    false
}

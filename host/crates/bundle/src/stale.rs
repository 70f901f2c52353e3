//! Staging folders a killed writer left behind.
//!
//! The writer stages a bundle in `.NAME.partial-PID-N` beside its destination and removes the
//! folder on every failure, cancellation and catchable signal ([`crate::output`]). SIGKILL (or a
//! power cut) cannot be caught, so the next write to the same destination sweeps: a sibling
//! directory named for that destination whose process no longer runs and which belongs to this
//! user is removed before the new staging folder is made. A folder of a live process (a build
//! running now, this one included), of another user, a symbolic link, or any other name is left
//! alone; so is every folder on systems without process ids to ask about.

use std::path::{Path, PathBuf};

/// The process id a staging folder name `.NAME.partial-PID-N` carries, for the destination `name`.
fn staging_pid(entry: &str, name: &str) -> Option<u32> {
    let rest = entry.strip_prefix('.')?.strip_prefix(name)?;
    let (pid, attempt) = rest.strip_prefix(".partial-")?.split_once('-')?;
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit());
    if !digits(attempt) || !digits(pid) {
        return None;
    }
    pid.parse().ok()
}

/// Whether a process with this id runs (or may: an id the kernel will not say is gone counts).
#[cfg(unix)]
fn process_runs(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // SAFETY: signal 0 sends nothing; it only asks the kernel whether the process exists.
    let answer = unsafe { libc::kill(pid, 0) };
    answer == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Whether a directory entry is a directory (not a link to one) this user owns.
#[cfg(unix)]
fn owned_directory(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let user = unsafe { libc::geteuid() };
    std::fs::symlink_metadata(path)
        .is_ok_and(|metadata| metadata.file_type().is_dir() && metadata.uid() == user)
}

/// Removes the stale staging folders of the destination `name` inside `parent`; returns the
/// folders removed (sorted). A folder that cannot be removed is left and not returned.
#[cfg(unix)]
pub fn sweep(parent: &Path, name: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut removed: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let pid = staging_pid(entry.file_name().to_str()?, name)?;
            let path = entry.path();
            let stale = !process_runs(pid) && owned_directory(&path);
            (stale && std::fs::remove_dir_all(&path).is_ok()).then_some(path)
        })
        .collect();
    removed.sort();
    removed
}

/// Without process ids to ask about, nothing is known to be stale.
#[cfg(not(unix))]
pub fn sweep(_parent: &Path, _name: &str) -> Vec<PathBuf> {
    Vec::new()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The id of a process that ran and ended.
    fn ended_pid() -> u32 {
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("spawn true");
        let pid = child.id();
        child.wait().expect("wait");
        pid
    }

    #[test]
    fn only_this_destinations_staging_names_carry_a_pid() {
        assert_eq!(staging_pid(".wiki.partial-41-0", "wiki"), Some(41));
        assert_eq!(staging_pid(".wiki.partial-41-12", "wiki"), Some(41));
        assert_eq!(staging_pid(".wiki2.partial-41-0", "wiki"), None);
        assert_eq!(staging_pid(".wiki.partial-41", "wiki"), None);
        assert_eq!(staging_pid(".wiki.partial--0", "wiki"), None);
        assert_eq!(staging_pid(".wiki.partial-4x-0", "wiki"), None);
        assert_eq!(staging_pid("wiki.partial-41-0", "wiki"), None);
    }

    #[test]
    fn a_dead_writers_folder_goes_and_everything_else_stays() {
        let dir = tempfile::tempdir().unwrap();
        let dead = ended_pid();
        let stale = dir.path().join(format!(".wiki.partial-{dead}-0"));
        std::fs::create_dir(&stale).unwrap();
        std::fs::write(stale.join("README.md"), "half").unwrap();
        let live = dir
            .path()
            .join(format!(".wiki.partial-{}-0", std::process::id()));
        std::fs::create_dir(&live).unwrap();
        let other = dir.path().join(format!(".notes.partial-{dead}-0"));
        std::fs::create_dir(&other).unwrap();
        let file = dir.path().join(format!(".wiki.partial-{dead}-1"));
        std::fs::write(&file, "not a folder").unwrap();
        let link = dir.path().join(format!(".wiki.partial-{dead}-2"));
        std::os::unix::fs::symlink(&live, &link).unwrap();

        assert_eq!(sweep(dir.path(), "wiki"), vec![stale.clone()]);
        assert!(!stale.exists());
        assert!(live.is_dir() && other.is_dir() && file.is_file());
        assert!(link.symlink_metadata().is_ok());
        assert_eq!(sweep(dir.path(), "wiki"), Vec::<PathBuf>::new());
    }
}

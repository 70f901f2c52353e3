//! The live heap headroom an input must fit before it is read (or, for Evidence built in this
//! process, before it is serialized).
//!
//! Reading a JSON input parses it into a tree and authentication walks it again to seal it, so an
//! input costs several times its size while it is loaded. Before a capture Evidence file, a
//! manifest file, an inspected HAR's Evidence or a projected manifest is read or serialized,
//! [`check_fits`] charges [`LOAD_FACTOR`] times its size against the memory the process can still
//! take, and refuses (`resource_constraint`, nothing read) when it does not fit.
//!
//! The headroom is measured, not configured: on Linux, the smallest of `MemAvailable` in
//! `/proc/meminfo` and, for every memory cgroup (v2) the process belongs to up to the root, its
//! `memory.max` less its `memory.current` (v1: `memory.limit_in_bytes` less
//! `memory.usage_in_bytes`). Where nothing can be measured (another system, no `/proc`), the check
//! admits the input: the readers' fixed byte budgets still bound it.
//!
//! Test hook ([`rea_evidence::test_hooks::heap_headroom`], only with the `test-hooks` feature): a
//! forced headroom replaces the measured one, so a test can force one too small for any input.

use std::path::Path;

use rea_evidence::{Evidence, Refusal};
use serde_json::json;

/// What loading an input costs, in multiples of its size: the bytes read, the parsed tree (a JSON
/// tree takes several times its text) and the canonical form sealing writes. An estimate, chosen
/// high: the inputs' own budgets (32 MiB HAR, 64 MiB Evidence) keep the charge under 512 MiB.
pub const LOAD_FACTOR: u64 = 8;

/// The live heap headroom in bytes, `None` when it cannot be measured.
pub fn live_headroom() -> Option<u64> {
    if let Some(forced) = rea_evidence::test_hooks::heap_headroom() {
        return forced;
    }
    measured_headroom()
}

fn measured_headroom() -> Option<u64> {
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_available(&text));
    [available, cgroup_headroom()].into_iter().flatten().min()
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    meminfo.lines().find_map(|line| {
        let rest = line.strip_prefix("MemAvailable:")?;
        let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib.saturating_mul(1024))
    })
}

/// The smallest limit-less-usage of the process's memory cgroups, in bytes.
fn cgroup_headroom() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut smallest: Option<u64> = None;
    let mut keep = |value: Option<u64>| {
        if let Some(value) = value {
            smallest = Some(smallest.map_or(value, |current| current.min(value)));
        }
    };
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next(), fields.next(), fields.next());
        let (Some(controllers), Some(path)) = (controllers, path) else {
            continue;
        };
        if controllers.is_empty() {
            // cgroup v2: this group and each ancestor.
            let mut group = Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
            loop {
                keep(limit_less_usage(
                    &group.join("memory.max"),
                    &group.join("memory.current"),
                ));
                if group == Path::new("/sys/fs/cgroup") || !group.pop() {
                    break;
                }
            }
        } else if controllers
            .split(',')
            .any(|controller| controller == "memory")
        {
            let group = Path::new("/sys/fs/cgroup/memory").join(path.trim_start_matches('/'));
            keep(limit_less_usage(
                &group.join("memory.limit_in_bytes"),
                &group.join("memory.usage_in_bytes"),
            ));
        }
    }
    smallest
}

fn limit_less_usage(limit: &Path, usage: &Path) -> Option<u64> {
    let limit: u64 = std::fs::read_to_string(limit).ok()?.trim().parse().ok()?;
    let usage: u64 = std::fs::read_to_string(usage).ok()?.trim().parse().ok()?;
    Some(limit.saturating_sub(usage))
}

/// Refuses (`resource_constraint`) an input of `bytes` whose load would not fit the live heap
/// headroom. `what` names it (`the capture Evidence file "…"`).
pub fn check_fits(what: &str, bytes: u64) -> Result<(), Refusal> {
    let Some(headroom) = live_headroom() else {
        return Ok(());
    };
    let needed = bytes.saturating_mul(LOAD_FACTOR);
    if needed <= headroom {
        return Ok(());
    }
    Err(Refusal::resource_constraint(format!(
        "{what} ({bytes} bytes) does not fit the live heap headroom: loading it needs about {needed} bytes, {headroom} are available; it was not read"
    ))
    .with_data(json!({
        "bytes": bytes,
        "needed_bytes": needed,
        "headroom_bytes": headroom,
    })))
}

/// [`check_fits`] for a file, by its size on disk, before it is opened for reading.
pub fn check_file_fits(what: &str, path: &Path) -> Result<(), Refusal> {
    match std::fs::metadata(path) {
        Ok(metadata) => check_fits(
            &format!(
                "{what} {}",
                serde_json::Value::from(path.display().to_string())
            ),
            metadata.len(),
        ),
        // A missing or unreadable file is refused by its reader, with the reader's own message.
        Err(_) => Ok(()),
    }
}

/// [`check_fits`] for Evidence built in this process, by the length of its canonical JSON,
/// counted without serializing it into memory.
pub fn check_evidence_fits(what: &str, evidence: &Evidence) -> Result<(), Refusal> {
    struct Counter(u64);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len() as u64;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    evidence
        .write_to(&mut counter)
        .map_err(|error| Refusal::internal(format!("{what} could not be measured: {error}")))?;
    check_fits(what, counter.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_bytes() {
        let meminfo = "MemTotal:       16000000 kB\nMemFree:  100 kB\nMemAvailable:    2048 kB\n";
        assert_eq!(mem_available(meminfo), Some(2048 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn the_headroom_is_measured_here() {
        // On Linux `/proc/meminfo` is there; the measured headroom is positive.
        if Path::new("/proc/meminfo").exists() {
            assert!(measured_headroom().is_some_and(|bytes| bytes > 0));
        }
    }
}

//! `--max-memory SIZE` of `environment-build`, `environment-serve` and `serve`: a limit on the
//! process's memory that refuses cleanly instead of being killed by the kernel or a container.
//!
//! Two checks, each a `resource_constraint` refusal naming the limit and the figure over it
//! (`data`: `limit: "max-memory"`, `max_memory_bytes`, and `estimated_bytes` or
//! `peak_rss_bytes`, with the `stage`):
//!
//! - **Up front**, before an input is read: its size times what reading it costs at the least
//!   ([`BUILD_INPUT_FACTOR`] for a capture a build reads; for a server, the state file and the
//!   capture Evidence it holds in memory while it starts). An input that cannot fit is refused
//!   before it is opened.
//! - **At every stage boundary** (a build's stages and each file it writes, a server's loading
//!   and state preparation before it binds): the process's peak resident set (`VmHWM` of
//!   `/proc/self/status`, what the benchmarks report and what a memory cgroup counts) against the
//!   limit. A build refused there has written nothing (a bundle being written is removed, as on
//!   a signal); a server refused there has bound nothing.
//!
//! Between two boundaries a stage may pass the limit before it is noticed, so the limit is a
//! figure to set below the memory the process may really take (a container's limit), not a cap
//! the allocator enforces. Where `/proc` cannot be read the boundary checks measure nothing and
//! only the up-front estimate applies. A server that started is not checked again: its requests
//! are bounded by their own budgets (4 MiB bodies, 32 MiB `data/add` documents).

use std::path::Path;

use rea_evidence::Refusal;
use serde_json::json;

/// What a build costs at the least for each byte of the capture it reads: the bytes, the records
/// extracted from them and the capture Evidence written from those (the measured peak is several
/// times more; see `host/crates/bundle/bench/startup.sh`).
pub const BUILD_INPUT_FACTOR: u64 = 3;

/// A `--max-memory` limit, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLimit {
    bytes: u64,
}

impl MemoryLimit {
    /// A limit of `bytes`.
    pub fn new(bytes: u64) -> Self {
        Self { bytes }
    }

    /// The limit in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Refuses before reading inputs of `input_bytes` whose load needs at least `estimated_bytes`
    /// over the limit; `what` names the inputs.
    pub fn check_estimate(
        &self,
        what: &str,
        input_bytes: u64,
        estimated_bytes: u64,
    ) -> Result<(), Refusal> {
        if estimated_bytes <= self.bytes {
            return Ok(());
        }
        Err(Refusal::resource_constraint(format!(
            "{what} ({input_bytes} bytes) needs at least about {estimated_bytes} bytes of memory to load, over the --max-memory limit of {} bytes; nothing was read",
            self.bytes
        ))
        .with_data(json!({
            "limit": "max-memory",
            "max_memory_bytes": self.bytes,
            "input_bytes": input_bytes,
            "estimated_bytes": estimated_bytes,
        })))
    }

    /// Refuses when the process's peak resident set so far is over the limit, at the boundary of
    /// `stage`.
    pub fn check_peak(&self, stage: &str) -> Result<(), Refusal> {
        match peak_resident_bytes() {
            Some(peak) if peak > self.bytes => Err(Refusal::resource_constraint(format!(
                "the peak memory reached {peak} bytes by the end of `{stage}`, over the --max-memory limit of {} bytes",
                self.bytes
            ))
            .with_data(json!({
                "limit": "max-memory",
                "max_memory_bytes": self.bytes,
                "peak_rss_bytes": peak,
                "stage": stage,
            }))),
            _ => Ok(()),
        }
    }
}

/// The process's peak resident set in bytes (`VmHWM`), `None` where it cannot be read.
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status_kib(&status, "VmHWM:").map(|kib| kib.saturating_mul(1024))
}

/// A `kB` figure of `/proc/self/status`.
fn status_kib(status: &str, field: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?;
        rest.trim().trim_end_matches("kB").trim().parse().ok()
    })
}

/// The summed sizes of the files among `paths` (a missing one counts nothing: its reader refuses
/// it with its own message).
pub fn file_bytes(paths: &[&Path]) -> u64 {
    paths
        .iter()
        .filter_map(|path| std::fs::metadata(path).ok())
        .filter(|metadata| metadata.is_file())
        .map(|metadata| metadata.len())
        .sum()
}

/// Parses a `--max-memory` value: bytes, or a number with a binary unit (`K`, `M`, `G`, `KiB`,
/// `MiB`, `GiB`, any case; `512M` is 512 MiB), at least 1 byte.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (digits, unit) = trimmed.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => {
            return Err(format!(
                "`{text}` is not a size: bytes, or a number with K, M or G (KiB, MiB, GiB)"
            ));
        }
    };
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size: it must start with a whole number"))?;
    let bytes = number
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{text}` is too large"))?;
    if bytes == 0 {
        return Err("the memory limit must be at least 1 byte".to_owned());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_binary_units() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("64kib"), Ok(64 << 10));
        assert!(parse_size("0").is_err());
        assert!(parse_size("1.5G").is_err());
        assert!(parse_size("M").is_err());
        assert!(parse_size("12T").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }

    #[test]
    fn an_estimate_over_the_limit_is_refused_with_both_figures() {
        let limit = MemoryLimit::new(1000);
        assert!(limit.check_estimate("the capture", 300, 900).is_ok());
        let refusal = limit.check_estimate("the capture", 400, 1200).unwrap_err();
        assert_eq!(refusal.code, "resource_constraint");
        let data = refusal.data.unwrap();
        assert_eq!(data["max_memory_bytes"], 1000);
        assert_eq!(data["estimated_bytes"], 1200);
    }

    #[test]
    fn the_peak_is_read_from_the_status_file() {
        let status = "Name:\trea\nVmPeak:\t  20000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(status_kib(status, "VmHWM:"), Some(1234));
        if Path::new("/proc/self/status").exists() {
            assert!(peak_resident_bytes().is_some_and(|bytes| bytes > 0));
            let refusal = MemoryLimit::new(1).check_peak("load").unwrap_err();
            assert_eq!(refusal.data.unwrap()["stage"], "load");
            assert!(MemoryLimit::new(u64::MAX).check_peak("load").is_ok());
        }
    }
}

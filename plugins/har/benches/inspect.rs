//! Benchmark of `rea inspect-web-network-capture` on a 32 MiB HAR built from real entries.
//!
//! `cargo bench -p rea-plugin-har --bench inspect` (optimized build). It builds a HAR of just under
//! 32 MiB by repeating every entry of the shared captures (so every producer's shape is in it),
//! then reports, in one run:
//!
//! * MB/s of a plain `serde_json::from_slice::<serde_json::Value>` of the same bytes;
//! * MB/s of the full inspect path in-process (read the file within its budget, hash it, run the
//!   HAR extractor through the registry, check its answer, build and seal the Evidence, write the
//!   canonical JSON to a sink), and the ratio of the two (target: within 3x);
//! * the peak resident memory (VmHWM) of a fresh process running the `rea` command line on the
//!   file with stdout discarded, and its ratio to the input size (target: under 4x).
//!
//! Environment: `REA_SHARED_DIR` (the shared folder, default `../shared` beside the workspace),
//! `REA_BENCH_ITERATIONS` (default 5; the median is reported), `REA_BENCH_PROFILE=N` (only run
//! the inspect path N times and print nothing else: for `perf record`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rea::commands::inspect_capture::{InspectRequest, inspect_output_with_builtins};

const BUDGET: usize = 32 * 1024 * 1024;
const CHILD_VARIABLE: &str = "REA_BENCH_CHILD_CAPTURE";

fn main() {
    if let Some(capture) = std::env::var_os(CHILD_VARIABLE) {
        child(Path::new(&capture));
        return;
    }
    // `cargo bench` passes `--bench`; nothing else is accepted.
    let iterations: usize = std::env::var("REA_BENCH_ITERATIONS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(5)
        .max(1);
    let dir = std::env::temp_dir().join(format!("rea-har-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let capture = dir.join("bench-32mib.har");
    let bytes = build_capture();
    std::fs::write(&capture, &bytes).expect("write the capture");
    let megabytes = bytes.len() as f64 / 1_000_000.0;
    if let Some(runs) = std::env::var("REA_BENCH_PROFILE")
        .ok()
        .and_then(|value| value.parse::<usize>().ok())
    {
        profile(&capture, runs);
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    println!(
        "input: {} bytes ({:.1} MiB), {} entries",
        bytes.len(),
        bytes.len() as f64 / 1_048_576.0,
        entry_count(&bytes)
    );

    let plain = median(iterations, || {
        let value: serde_json::Value = serde_json::from_slice(&bytes).expect("valid JSON");
        std::hint::black_box(&value);
    });
    let request = InspectRequest {
        capture: &capture,
        input_kind: "har",
        selection: None,
        sensitive_values: &[],
    };
    let mut output_bytes = 0usize;
    let inspect = median(iterations, || {
        let output =
            inspect_output_with_builtins(&request).expect("the benchmark capture inspects");
        let mut sink = CountingSink(0);
        output.write_to(&mut sink).expect("write");
        output_bytes = sink.0;
    });
    println!(
        "serde_json::from_slice::<Value>: {:>8.1} MB/s ({:.0} ms)",
        megabytes / plain.as_secs_f64(),
        plain.as_secs_f64() * 1000.0
    );
    println!(
        "inspect-web-network-capture:     {:>8.1} MB/s ({:.0} ms, {} bytes of Evidence)",
        megabytes / inspect.as_secs_f64(),
        inspect.as_secs_f64() * 1000.0,
        output_bytes
    );
    println!(
        "inspect / plain parse time:      {:>8.2}x (target: at most 3x)",
        inspect.as_secs_f64() / plain.as_secs_f64()
    );
    phases(&bytes, iterations);
    match peak_rss_of_cli(&capture) {
        Some(peak) => println!(
            "peak RSS of the command:         {:>8.1} MiB = {:.2}x the input (target: under 4x)",
            peak as f64 / 1_048_576.0,
            peak as f64 / bytes.len() as f64
        ),
        None => println!("peak RSS of the command:         unavailable (no /proc/self/status)"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs only the inspect path, `runs` times (for a profiler).
fn profile(capture: &Path, runs: usize) {
    let request = InspectRequest {
        capture,
        input_kind: "har",
        selection: None,
        sensitive_values: &[],
    };
    for _ in 0..runs {
        let output =
            inspect_output_with_builtins(&request).expect("the benchmark capture inspects");
        output.write_to(&mut CountingSink(0)).expect("write");
    }
}

/// Where the time of the inspect path goes (each phase timed alone, median).
fn phases(bytes: &[u8], iterations: usize) {
    use rea_plugin_api::contracts::capture::ExtractRequest;
    use rea_plugin_api::json::{self, ParseOptions};
    let request = ExtractRequest {
        input_kind: "har".to_owned(),
        sensitive_values: Vec::new(),
        schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
    };
    let options = ParseOptions::default().allow_byte_order_mark(true);
    let report = |name: &str, time: Duration| {
        println!("  {name:<44} {:>6.0} ms", time.as_secs_f64() * 1000.0);
    };
    println!("phases:");
    report(
        "sha256 of the input",
        median(iterations, || {
            std::hint::black_box(rea_evidence::sha256_hex(bytes));
        }),
    );
    report(
        "strict parse of the input (plugin-api json)",
        median(iterations, || {
            std::hint::black_box(json::parse_with(bytes, &options).expect("parses"));
        }),
    );
    report(
        "HAR extraction (parse + records)",
        median(iterations, || {
            std::hint::black_box(rea_plugin_har::extract(&request, bytes).expect("extracts"));
        }),
    );
    let extraction = rea_plugin_har::extract(&request, bytes).expect("extracts");
    report(
        "answer to JSON text (serde_json)",
        median(iterations, || {
            std::hint::black_box(serde_json::to_string(&extraction).expect("serializes"));
        }),
    );
    let raw = serde_json::to_string(&extraction).expect("serializes");
    let deep = ParseOptions::default().max_depth(128);
    report(
        "host: answer checked record by record",
        median(iterations, || {
            let mut count = 0usize;
            let streamed = json::parse_streaming_text(
                &raw,
                &deep,
                json::ItemStream {
                    path: &["records"],
                    string_limit: 16,
                    on_item: &mut |_, item, _| {
                        count += 1;
                        std::hint::black_box(item);
                    },
                },
            )
            .expect("parses");
            std::hint::black_box((streamed, count));
        }),
    );
    report(
        "sha256 of the output",
        median(iterations, || {
            std::hint::black_box(rea_evidence::sha256_hex(raw.as_bytes()));
        }),
    );
}

/// The child: runs the command line with stdout discarded, then reports its peak RSS in bytes on
/// stderr.
fn child(capture: &Path) {
    let code = rea::cli::main_with_args([
        "rea",
        "inspect-web-network-capture",
        capture.to_str().expect("utf-8 path"),
        "har",
    ]);
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    eprintln!("peak-bytes {}", peak_kib * 1024);
    let _ = code;
}

fn peak_rss_of_cli(capture: &Path) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let output = Command::new(exe)
        .env(CHILD_VARIABLE, capture)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let peak: u64 = stderr
        .lines()
        .find_map(|line| line.strip_prefix("peak-bytes "))?
        .trim()
        .parse()
        .ok()?;
    (peak > 0).then_some(peak)
}

fn median(iterations: usize, mut run: impl FnMut()) -> Duration {
    run(); // warm-up
    let mut times: Vec<Duration> = (0..iterations)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

struct CountingSink(usize);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("REA_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// A HAR of just under 32 MiB: the entries of every shared capture that inspects, repeated.
fn build_capture() -> Vec<u8> {
    let captures = shared_dir().join("captures");
    let mut entries: Vec<serde_json::Value> = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&captures)
        .unwrap_or_else(|error| panic!("{}: {error}", captures.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .expect("capture folder")
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "har"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read(&file).expect("read capture");
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&text);
            let Ok(document) = serde_json::from_slice::<serde_json::Value>(text) else {
                continue;
            };
            if let Some(items) = document.pointer("/log/entries").and_then(|e| e.as_array()) {
                entries.extend(items.iter().cloned());
            }
        }
    }
    assert!(!entries.is_empty(), "no entries in {}", captures.display());
    let head = br#"{"log":{"version":"1.2","creator":{"name":"rea-bench","version":"1"},"pages":[],"entries":["#;
    let tail = b"]}}";
    let mut out = head.to_vec();
    let mut first = true;
    'fill: loop {
        for entry in &entries {
            let text = serde_json::to_vec(entry).expect("serialize entry");
            if out.len() + text.len() + 1 + tail.len() > BUDGET {
                break 'fill;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(&text);
        }
    }
    out.extend_from_slice(tail);
    out
}

fn entry_count(bytes: &[u8]) -> usize {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|value| {
            value
                .pointer("/log/entries")
                .and_then(|e| e.as_array())
                .map(Vec::len)
        })
        .unwrap_or(0)
}

//! Build script of the `rea` binary: lays out the shipped binary's code so what a build and a
//! server run sits together (issue 17, peak RSS at small captures).
//!
//! The kernel maps a binary's code in blocks around each page a process touches (fault-around,
//! and whole large folios of the page cache), so code a run touches, scattered among code it never
//! runs, keeps far more of the binary resident than it uses. `code-order.txt` lists the functions
//! both a precomputed server (to `/ready` and an MCP session's first calls) and an
//! `environment-build` touch, then those only the build touches, then those only the server does
//! (`host/crates/bundle/bench/code_order.py` writes it); the linker places them first in `.text`,
//! in that order, so each run's code sits together. Only release builds for x86_64 Linux with
//! the toolchain's own linker (rust-lld, the default from Rust 1.90; no linker or linker flags
//! configured) use it. A name the
//! binary no longer has is skipped, so a stale list changes the layout, never the code.
use std::env;
use std::path::Path;

fn main() {
    let list =
        Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("code-order.txt");
    println!("cargo:rerun-if-changed={}", list.display());
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let release = env::var("PROFILE").is_ok_and(|profile| profile == "release");
    let lld_target = env::var("TARGET").is_ok_and(|target| target == "x86_64-unknown-linux-gnu");
    let own_linker = env::var_os("RUSTC_LINKER").is_none()
        && !env::var("CARGO_ENCODED_RUSTFLAGS").is_ok_and(|flags| flags.contains("linker"));
    if release && lld_target && own_linker && lld_by_default() && list.is_file() {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            list.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// Whether the compiler links with its own LLD unless told otherwise: Rust 1.90 and later on
/// x86_64 Linux (before it, `cc` with the system's GNU ld, which has no `--symbol-ordering-file`;
/// the workspace's `rust-version` is older).
fn lld_by_default() -> bool {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(output) = std::process::Command::new(rustc).arg("--version").output() else {
        return false;
    };
    let version = String::from_utf8_lossy(&output.stdout);
    let mut parts = version
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .split('.')
        .map(|part| part.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (1, 90)
}

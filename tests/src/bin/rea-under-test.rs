//! The `rea` binary, built inside the test package so integration tests can run it
//! (`env!("CARGO_BIN_EXE_rea-under-test")`). Same entry point as `host/src/main.rs`.

use std::process::ExitCode;

fn main() -> ExitCode {
    rea::cli::main_with_args(std::env::args_os())
}

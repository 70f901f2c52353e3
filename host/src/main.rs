//! The `rea` binary: parses the command line and runs the command (see the `rea` library).

use std::process::ExitCode;

fn main() -> ExitCode {
    rea::cli::main_with_args(std::env::args_os())
}

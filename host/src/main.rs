//! The `rea` binary: parses the command line and runs the command (see the `rea` library).

use std::process::ExitCode;

fn main() -> ExitCode {
    // The loader has applied the binary's relocations: their table's pages are not needed again.
    rea_serve::relocations::drop_relocation_table();
    rea::cli::main_with_args(std::env::args_os())
}

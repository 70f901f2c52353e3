//! How commands end: results on stdout, refusals on stderr (one line each, or JSON with `--json`),
//! and the exit code (2 for usage or configuration errors, 1 for other refusals).

use std::io::Write;
use std::process::ExitCode;

use rea_evidence::Refusal;

/// A command that did not complete: its refusals and how to report them.
#[derive(Debug)]
pub struct CommandFailure {
    /// Every problem found (validation collects all of them before anything runs).
    pub refusals: Vec<Refusal>,
    /// The process exit code.
    pub exit: u8,
    /// Report as JSON lines instead of text lines.
    pub json: bool,
}

impl CommandFailure {
    /// Exit code for usage and configuration errors.
    pub const USAGE_EXIT: u8 = 2;
    /// Exit code for other refusals.
    pub const REFUSAL_EXIT: u8 = 1;

    /// A usage or configuration failure (exit 2).
    pub fn configuration(refusals: Vec<Refusal>, json: bool) -> Self {
        Self {
            refusals,
            exit: Self::USAGE_EXIT,
            json,
        }
    }

    /// A refusal of the input or the operation (exit 1).
    pub fn refused(refusal: Refusal, json: bool) -> Self {
        Self {
            refusals: vec![refusal],
            exit: Self::REFUSAL_EXIT,
            json,
        }
    }

    /// A server stopped by a signal: nothing to report, the signal's exit code (`128 + n`).
    pub fn signalled(exit: u8) -> Self {
        Self {
            refusals: Vec::new(),
            exit,
            json: true,
        }
    }

    /// Writes the refusals to stderr and returns the exit code.
    pub fn report(&self) -> ExitCode {
        let stderr = std::io::stderr();
        let mut out = stderr.lock();
        for refusal in &self.refusals {
            let line = if self.json {
                refusal.to_json_line()
            } else {
                refusal.to_text_line()
            };
            let _ = writeln!(out, "{line}");
        }
        ExitCode::from(self.exit)
    }
}

/// Writes a JSON value to stdout as pretty JSON with a trailing newline.
pub fn print_json(value: &serde_json::Value) -> Result<(), CommandFailure> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|error| CommandFailure::refused(Refusal::internal(error.to_string()), true))?;
    text.push('\n');
    write_stdout(text.as_bytes())
}

/// Writes bytes to stdout, flushing; a closed stdout is not an error worth a panic.
pub fn write_stdout(bytes: &[u8]) -> Result<(), CommandFailure> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|error| {
            CommandFailure::refused(
                Refusal::new("output_failed", "unavailable", error.to_string()),
                false,
            )
        })
}

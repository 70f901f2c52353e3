//! How commands end: results on stdout, refusals on stderr (one text line each ending in a hint,
//! or JSON lines with `--json`), and the exit code (2 for usage or configuration errors, 1 for
//! other refusals).

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

    /// Writes the refusals of `rea COMMAND` to stderr and returns the exit code: a configuration
    /// problem is a usage mistake (exit 2) whatever stage raised it.
    pub fn report(&self, command: &str) -> ExitCode {
        let stderr = std::io::stderr();
        let mut out = stderr.lock();
        for refusal in &self.refusals {
            let line = if self.json {
                refusal.to_json_line()
            } else {
                text_line(refusal, command)
            };
            let _ = writeln!(out, "{line}");
        }
        let usage = self.refusals.iter().any(is_usage_mistake);
        match self.exit {
            Self::REFUSAL_EXIT if usage => ExitCode::from(Self::USAGE_EXIT),
            exit => ExitCode::from(exit),
        }
    }
}

/// Whether a refusal is a mistake in how rea was called: its configuration, or an input file
/// named that does not exist.
fn is_usage_mistake(refusal: &Refusal) -> bool {
    refusal.category == "configuration" || refusal.is_missing_file()
}

/// One refusal as one text line: `rea: CODE: MESSAGE (at POINTER); hint: WHAT TO DO`. The
/// pointer is left out when it is empty (the whole input); the hint is the refusal's own
/// (`data.hint`) or its code's.
pub fn text_line(refusal: &Refusal, command: &str) -> String {
    let mut line = format!("rea: {}: {}", refusal.code, refusal.message);
    if let Some(pointer) = refusal
        .pointer
        .as_deref()
        .filter(|pointer| !pointer.is_empty())
    {
        line.push_str(&format!(" (at {pointer})"));
    }
    let own = refusal
        .data
        .as_ref()
        .and_then(|data| data.get("hint"))
        .and_then(serde_json::Value::as_str);
    let hint = own.map_or_else(|| hint_for(refusal, command), str::to_owned);
    line.push_str("; hint: ");
    line.push_str(&hint);
    line
}

/// What to do about a refusal of this code.
fn hint_for(refusal: &Refusal, command: &str) -> String {
    let help = format!("`rea {command} --help` says what each argument takes");
    match (refusal.code.as_str(), refusal.category.as_str()) {
        ("resource_constraint", _) => {
            "use a smaller input (fewer records, a shorter recording) or the limit the message names".to_owned()
        }
        ("cancelled", _) => "run the command again to finish it".to_owned(),
        ("internal_error", _) => format!(
            "this is a defect in rea or a plugin: report it with the command line (rea {command})"
        ),
        ("output_failed", _) => "check that stdout is open and writable".to_owned(),
        (_, "configuration") => format!("correct the named setting or file; {help}"),
        _ => help,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_line_leaves_out_an_empty_pointer_and_ends_in_a_hint() {
        let root = Refusal::invalid_request("the document is not an object").at("");
        assert_eq!(
            text_line(&root, "inspect-analysis-view"),
            "rea: invalid_request: the document is not an object; hint: `rea inspect-analysis-view --help` says what each argument takes"
        );
        let named = Refusal::configuration_invalid("unknown stage").at("/stage/0");
        assert!(text_line(&named, "pipeline").starts_with(
            "rea: configuration_invalid: unknown stage (at /stage/0); hint: correct the named setting"
        ));
        let own = Refusal::resource_constraint("too big")
            .with_data(serde_json::json!({"hint": "select fewer records with --record"}));
        assert!(text_line(&own, "serve").ends_with("; hint: select fewer records with --record"));
    }

    #[test]
    fn a_configuration_refusal_exits_2_whatever_raised_it() {
        let failure = CommandFailure::refused(Refusal::configuration_invalid("bad"), false);
        assert_eq!(failure.exit, CommandFailure::REFUSAL_EXIT);
        assert!(failure.refusals.iter().any(is_usage_mistake));
        assert!(!is_usage_mistake(&Refusal::invalid_request("x")));
    }

    #[test]
    fn a_missing_input_file_is_a_usage_mistake_and_still_an_input_failure() {
        let missing = Refusal::missing_file("/tmp/x.har");
        assert!(is_usage_mistake(&missing));
        // CAPTURE-019: a missing file is an input failure.
        assert_eq!(
            (missing.code.as_str(), missing.category.as_str()),
            ("invalid_request", "input")
        );
        assert_eq!(missing.message, "/tmp/x.har: no such file");
        // Only the marker makes it one: the same message without it is not.
        assert!(!is_usage_mistake(&Refusal::invalid_request(
            "/tmp/x.har: no such file"
        )));
    }
}

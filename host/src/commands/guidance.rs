//! `rea guidance --query Q [--page N]` and `rea guidance --action read --locator L`: search the
//! installed guidance bundle and read a section, with the semantics of the `search_guidance` and
//! `read_guidance_section` tools. The bundle is the one embedded in rea, or the folder
//! `REA_GUIDANCE_DIR` names. Works without a capture, a provider or a server.

use clap::{Args, ValueEnum};
use rea_evidence::Refusal;
use rea_self_mcp::BundleSource;
use rea_self_mcp::guidance::{SearchRequest, read, search};
use serde_json::Value;

use crate::output::{CommandFailure, print_json, write_stdout};

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GuidanceAction {
    /// Search by question (default).
    Search,
    /// Read the section a locator names.
    Read,
}

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GuidanceFormat {
    /// The result document, as the tools return it.
    Json,
    /// Matches one per line (search), or the section's markdown (read).
    Text,
}

/// Arguments of `rea guidance`.
#[derive(Debug, Args)]
pub struct GuidanceArgs {
    /// `search` (default) or `read`.
    #[arg(long, value_enum, default_value = "search")]
    pub action: GuidanceAction,
    /// The question (search).
    #[arg(long, value_name = "QUERY")]
    pub query: Option<String>,
    /// The 1-based page of matches (search).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub page: usize,
    /// A locator a search returned (read).
    #[arg(long, value_name = "LOCATOR")]
    pub locator: Option<String>,
    /// Print JSON (the default; `--format json`).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format (`--json` is `--format json`).
    #[arg(long, value_enum, default_value = "json")]
    pub format: GuidanceFormat,
}

/// Runs `rea guidance`.
pub fn run(args: &GuidanceArgs) -> Result<(), CommandFailure> {
    // Refusals follow the output: JSON lines with JSON output, else text lines.
    let json = args.format == GuidanceFormat::Json;
    let source = BundleSource::from_env();
    let usage = |message: &str| {
        CommandFailure::configuration(vec![Refusal::invalid_request(message.to_owned())], json)
    };
    let result = match args.action {
        GuidanceAction::Search => {
            if args.locator.is_some() {
                return Err(usage("--locator is for --action read"));
            }
            let query = args
                .query
                .clone()
                .ok_or_else(|| usage("a search needs --query"))?;
            if args.page == 0 {
                return Err(usage("--page starts at 1"));
            }
            search(
                &source,
                &SearchRequest {
                    query,
                    page: args.page,
                },
            )
        }
        GuidanceAction::Read => {
            if args.query.is_some() {
                return Err(usage("--query is for --action search"));
            }
            let locator = args
                .locator
                .as_deref()
                .ok_or_else(|| usage("--action read needs --locator"))?;
            read(&source, locator)
        }
    }
    .map_err(|refusal| CommandFailure::refused(refusal, json))?;
    match args.format {
        GuidanceFormat::Json => print_json(&result),
        GuidanceFormat::Text => write_stdout(text_of(&result).as_bytes()),
    }
}

fn text_of(result: &Value) -> String {
    if let Some(text) = result.get("text").and_then(Value::as_str) {
        let mut text = text.to_owned();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        return text;
    }
    let mut out = String::new();
    for found in result["matches"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            found["locator"].as_str().unwrap_or_default(),
            found["match_scope"].as_str().unwrap_or_default(),
            found["content_length"],
            found["heading_path"]
                .as_array()
                .map(|path| path
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" > "))
                .unwrap_or_default(),
        ));
    }
    if let Some(note) = result.get("note").and_then(Value::as_str) {
        out.push_str(note);
        out.push('\n');
    }
    if let Some(next) = result.get("next_page").and_then(Value::as_u64) {
        out.push_str(&format!("more: --page {next}\n"));
    }
    out
}

//! `rea-plugin-har`: the HAR 1.2 capture extractor.
//!
//! It reads one HTTP archive (as Chrome, Firefox, Safari, Charles, Insomnia, Playwright and
//! mitmproxy write them) with the strict reader of [`rea_plugin_api::json`], validates every
//! standard field it knows, and answers one [`CaptureRecord`] per `log.entries` item, in producer
//! order, plus the container metadata, redactions and limitations. Selection of records is the
//! host's job, after every record was validated here.
//!
//! * [`extract`] is the whole job; [`HarExtractor`] is the same behind the plugin contract.
//! * Refusals are [`PluginError`]s whose `detail_json` is `{"category", "pointer"}` (see
//!   [`refusal`]); none ever carries a declared sensitive value.
//!
//! Decisions where the HAR 1.2 text and the producers disagree (each noted where it is applied):
//! a leading UTF-8 byte-order mark is skipped (Chrome on Windows writes one); optional standard
//! fields may be `null` as well as absent (mitmproxy writes `headersSize: null`,
//! `redirectURL: null`); only `log`, `log.version`, `log.entries`, `request`, `response`,
//! `request.method`, `request.url` and `response.status` are required.
//!
//! [`CaptureRecord`]: rea_plugin_api::contracts::capture::CaptureRecord
//! [`PluginError`]: rea_plugin_api::PluginError

mod entry;
mod fields;
mod limitations;
pub mod refusal;
mod sensitive;
mod time;
mod url;

use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::capture::{ExtractRequest, Extraction};
use rea_plugin_api::json::{self, ItemStream, Json, JsonErrorKind, ParseOptions};
use rea_plugin_api::{CaptureExtractor, Plugin, PluginError, StageInfo};

use crate::fields::Fields;
use crate::limitations::Limitations;
use crate::refusal::Refusal;
use crate::sensitive::Sensitive;

pub use crate::time::parse_instant;
pub use crate::url::{UrlParts, decode_query, split_url};

/// The plugin's name, and the name of its one capture stage.
pub const NAME: &str = "har";

/// The input kind the stage reads.
pub const INPUT_KIND: &str = "har";

/// The largest capture accepted: 32 MiB.
pub const MAX_INPUT_BYTES: usize = 32 * 1024 * 1024;

/// The deepest nesting accepted.
pub const MAX_DEPTH: usize = json::DEFAULT_MAX_DEPTH;

/// The only `log.version` accepted.
pub const HAR_VERSION: &str = "1.2";

/// The JSON pointer of the record collection.
pub const RECORDS_POINTER: &str = "/log/entries";

rea_plugin_api::plugin_root_module! {
    /// The root module of the HAR plugin (the built-in and the cdylib export the same one).
    pub fn root_module() = Plugin::new(NAME, env!("CARGO_PKG_VERSION")).capture(
        StageInfo::new(NAME, "Reads a HAR 1.2 file (browser DevTools, Playwright, mitmproxy, proxies) into capture records")
            .inputs([INPUT_KIND]),
        HarExtractor,
    );
}

rea_plugin_api::submit_builtin!(root_module);

/// The HAR extractor behind the plugin contract.
#[derive(Debug, Clone, Copy, Default)]
pub struct HarExtractor;

impl CaptureExtractor for HarExtractor {
    fn extract(&self, request: &ExtractRequest, bytes: &[u8]) -> Result<Extraction, PluginError> {
        extract(request, bytes)
    }
}

/// Extracts every record of a HAR file, or refuses it.
pub fn extract(request: &ExtractRequest, bytes: &[u8]) -> Result<Extraction, PluginError> {
    let sensitive = Sensitive::new(&request.sensitive_values)
        .map_err(|refusal| refusal.into_plugin_error(&Sensitive::empty()))?;
    extract_checked(request, bytes, &sensitive)
        .map_err(|refusal| refusal.into_plugin_error(&sensitive))
}

fn extract_checked(
    request: &ExtractRequest,
    bytes: &[u8],
    sensitive: &Sensitive,
) -> Result<Extraction, Refusal> {
    if request.input_kind != INPUT_KIND {
        return Err(Refusal::unsupported(
            format!(
                "the HAR extractor reads `{INPUT_KIND}` inputs, not `{}`",
                request.input_kind
            ),
            None,
        ));
    }
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(Refusal::resource(
            format!(
                "the capture has {} bytes, more than the {MAX_INPUT_BYTES}-byte (32 MiB) budget",
                bytes.len()
            ),
            None,
        ));
    }
    let options = ParseOptions::default()
        .max_depth(MAX_DEPTH)
        // Chrome on Windows writes a byte-order mark; RFC 8259 §8.1 lets a reader ignore it.
        .allow_byte_order_mark(true);
    let mut limitations = Limitations::default();
    if bytes.starts_with(json::BYTE_ORDER_MARK) {
        limitations.whole(
            "byte-order-mark",
            "The file starts with a UTF-8 byte-order mark; it was skipped.",
        );
    }
    // Entries become records as they are read, so the parsed form of the whole file is never
    // held at once. Refusals keep their precedence: not JSON, then the container, then the first
    // malformed entry (later entries are still read, to find JSON errors after them).
    let mut records = Vec::new();
    let mut redactions = Vec::new();
    let mut first_entry_error: Option<Refusal> = None;
    let streamed = json::parse_streaming(
        bytes,
        &options,
        ItemStream {
            path: &["log", "entries"],
            string_limit: usize::MAX,
            on_item: &mut |index, item, _| {
                if first_entry_error.is_some() {
                    return;
                }
                match entry::record(
                    item,
                    index as u64,
                    sensitive,
                    &mut redactions,
                    &mut limitations,
                ) {
                    Ok(record) => records.push(record),
                    Err(refusal) => first_entry_error = Some(refusal),
                }
            },
        },
    )
    .map_err(json_refusal)?;
    let mut document = streamed.document;
    check_container(&mut document)?;
    if let Some(refusal) = first_entry_error {
        return Err(refusal);
    }
    sensitive.scrub_container(&mut document, &mut redactions);
    let container = serde_json::value::RawValue::from_string(document.to_canonical_string())
        .map_err(|error| Refusal::internal(format!("the container did not serialize: {error}")))?;
    Ok(Extraction {
        container,
        limitations: limitations.into_list(),
        records,
        records_pointer: RECORDS_POINTER.to_owned(),
        redactions,
        schema_version: SCHEMA_VERSION,
    })
}

fn json_refusal(error: json::JsonError) -> Refusal {
    let pointer = Some(error.pointer.clone());
    match error.kind {
        JsonErrorKind::TooDeep { .. } => Refusal::resource(
            format!("the capture is refused: {}", error.describe()),
            pointer,
        ),
        JsonErrorKind::DuplicateKey => Refusal::input(
            format!("the capture is refused: {}", error.describe()),
            pointer,
        ),
        _ => Refusal::input(
            format!("the capture is not JSON: {}", error.describe()),
            pointer,
        ),
    }
}

/// Checks the container (`log` and its standard members) and replaces `log.entries` (already
/// streamed into records) by `null`.
fn check_container(document: &mut Json) -> Result<(), Refusal> {
    let Json::Object(root) = document else {
        return Err(Refusal::input(
            format!(
                "the capture is not a HAR document: its top level is {}, not an object with `log`",
                article(document.type_name())
            ),
            Some(String::new()),
        ));
    };
    let Some(log) = root.get_mut("log") else {
        return Err(Refusal::input(
            "the capture is not a HAR document: it has no `log` member",
            Some("/log".to_owned()),
        ));
    };
    let Json::Object(log) = log else {
        return Err(Fields::wrong_type("/log", "an object", log));
    };
    let fields = Fields::new(log, "/log");
    match log.get("version") {
        Some(Json::String(version)) if version == HAR_VERSION => {}
        Some(Json::String(_)) => {
            return Err(Refusal::unsupported(
                format!("only HAR {HAR_VERSION} is accepted; `log.version` names another version"),
                Some("/log/version".to_owned()),
            ));
        }
        Some(other) => return Err(Fields::wrong_type("/log/version", "a string", other)),
        None => {
            return Err(Refusal::unsupported(
                format!("only HAR {HAR_VERSION} is accepted; `log.version` is missing"),
                Some("/log/version".to_owned()),
            ));
        }
    }
    fields.optional_object("creator")?;
    fields.optional_object("browser")?;
    fields.optional_string("comment")?;
    for (name, object) in [
        ("creator", log.get("creator")),
        ("browser", log.get("browser")),
    ] {
        if let Some(Json::Object(object)) = object {
            let nested_pointer = format!("/log/{name}");
            let nested = Fields::new(object, &nested_pointer);
            nested.optional_string("name")?;
            nested.optional_string("version")?;
            nested.optional_string("comment")?;
        }
    }
    if let Some(pages) = fields.optional_array("pages")? {
        for (index, page) in pages.iter().enumerate() {
            let pointer = format!("/log/pages/{index}");
            let Json::Object(page) = page else {
                return Err(Fields::wrong_type(&pointer, "an object", page));
            };
            let page_fields = Fields::new(page, &pointer);
            page_fields.optional_string("startedDateTime")?;
            page_fields.optional_string("id")?;
            page_fields.optional_string("title")?;
            page_fields.optional_string("comment")?;
            if let Some(timings) = page_fields.optional_object("pageTimings")? {
                let timings_pointer = format!("{pointer}/pageTimings");
                let timing_fields = Fields::new(timings, &timings_pointer);
                timing_fields.optional_number("onContentLoad")?;
                timing_fields.optional_number("onLoad")?;
                timing_fields.optional_string("comment")?;
            }
        }
    }
    match log.take("entries") {
        Some(Json::Array(_)) => Ok(()),
        Some(other) => Err(Fields::wrong_type(RECORDS_POINTER, "an array", &other)),
        None => Err(Refusal::input(
            "the capture is not a HAR document: `log.entries` is missing",
            Some(RECORDS_POINTER.to_owned()),
        )),
    }
}

fn article(type_name: &str) -> String {
    match type_name {
        "array" | "object" => format!("an {type_name}"),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    }
}

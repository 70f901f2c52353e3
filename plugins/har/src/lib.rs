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
pub mod refusal;
mod sensitive;

use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::capture::{
    CaptureRecord, ExtractRequest, Extraction, Limitation, Redaction,
};
use rea_plugin_api::json::{self, ItemStream, Json, JsonErrorKind, ParseOptions};
use rea_plugin_api::{CaptureExtractor, Plugin, PluginError, StageInfo};

use crate::fields::Fields;
use crate::refusal::HarRefusal;
use crate::sensitive::Sensitive;
use rea_plugin_api::contracts::capture::Limitations;

pub use rea_plugin_api::contracts::capture::url::{UrlParts, decode_query, split_url};

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

    fn extract_json(&self, request: &ExtractRequest, bytes: &[u8]) -> Result<String, PluginError> {
        extract_json(request, bytes, &mut |_| {})
    }

    fn extract_json_reporting(
        &self,
        request: &ExtractRequest,
        bytes: &[u8],
        read: &mut dyn FnMut(u64),
    ) -> Result<String, PluginError> {
        extract_json(request, bytes, read)
    }
}

/// Extracts every record of a HAR file, or refuses it.
pub fn extract(request: &ExtractRequest, bytes: &[u8]) -> Result<Extraction, PluginError> {
    let sensitive = Sensitive::new(&request.sensitive_values)
        .map_err(|refusal| refusal.into_plugin_error(&Sensitive::empty()))?;
    let mut records = Vec::new();
    let parts = extract_checked(request, bytes, &sensitive, &mut |record, _| {
        records.push(record)
    })
    .map_err(|refusal| refusal.into_plugin_error(&sensitive))?;
    Ok(parts.into_extraction(records))
}

/// [`extract`]'s answer as the contract's JSON text, byte for byte what serde_json writes for it.
/// `read` hears how many bytes of the file are read, after each entry and at the end.
///
/// Records are encoded on a second thread while the main thread still parses the file, so the
/// encoding overlaps the parse instead of following it. They are written straight into the
/// answer's buffer; the members before them (known only once the file is read) are put in front
/// at the end, moving the records within the buffer instead of copying them to a new one.
pub fn extract_json(
    request: &ExtractRequest,
    bytes: &[u8],
    read: &mut dyn FnMut(u64),
) -> Result<String, PluginError> {
    let sensitive = Sensitive::new(&request.sensitive_values)
        .map_err(|refusal| refusal.into_plugin_error(&Sensitive::empty()))?;
    let (parts, records) = std::thread::scope(|scope| {
        // Bounded: when the encoder falls behind (a loaded machine starves its thread), the parse
        // waits for it instead of queueing the capture's records, bodies and all (issue 17).
        let (sender, receiver) =
            std::sync::mpsc::sync_channel::<Vec<CaptureRecord>>(BATCHES_IN_FLIGHT);
        // Encoded batches come back to be freed here, where their memory was allocated: freeing
        // it on the encoder's thread contends for the allocator's lock with the parse.
        let (returner, returned) = std::sync::mpsc::channel::<Vec<CaptureRecord>>();
        let encoder = scope.spawn(move || {
            // Records take about as many bytes as the file (bodies dominate both); the slack
            // avoids moving everything once more when they grow a little, and costs nothing
            // while unused (untouched pages are not resident).
            let mut text = Vec::with_capacity(bytes.len() + bytes.len() / 8 + 4096);
            for batch in receiver {
                for record in &batch {
                    if !text.is_empty() {
                        text.push(b',');
                    }
                    serde_json::to_writer(&mut text, record).map_err(|error| error.to_string())?;
                }
                let _ = returner.send(batch);
            }
            Ok::<Vec<u8>, String>(text)
        });
        // Records go over in batches: a wake-up of the encoder per record costs more than
        // encoding a small one.
        let mut batch = Vec::with_capacity(RECORD_BATCH);
        let parts = extract_checked(request, bytes, &sensitive, &mut |record, end| {
            read(end as u64);
            batch.push(record);
            if batch.len() == RECORD_BATCH {
                let next = match returned.try_recv() {
                    Ok(mut done) => {
                        done.clear();
                        done
                    }
                    Err(_) => Vec::with_capacity(RECORD_BATCH),
                };
                // The encoder only stops early when the process is failing anyway.
                let _ = sender.send(std::mem::replace(&mut batch, next));
            }
        });
        if !batch.is_empty() {
            let _ = sender.send(batch);
        }
        if parts.is_ok() {
            read(bytes.len() as u64);
        }
        drop(sender);
        let records = encoder
            .join()
            .unwrap_or_else(|_| Err("the record encoder panicked".to_owned()));
        drop(returned);
        (parts, records)
    });
    let parts = parts.map_err(|refusal| refusal.into_plugin_error(&sensitive))?;
    let records = records.map_err(|reason| {
        PluginError::new(
            "internal_error",
            format!("a record did not encode: {reason}"),
        )
    })?;
    parts
        .into_json_text(records)
        .map_err(|reason| PluginError::new("internal_error", reason))
}

/// How many records [`extract_json`] hands its encoder at once.
const RECORD_BATCH: usize = 32;

/// How many batches may wait for [`extract_json`]'s encoder before the parse waits for it.
const BATCHES_IN_FLIGHT: usize = 8;

/// Everything an extraction holds but its records.
struct ExtractionParts {
    container: Box<serde_json::value::RawValue>,
    limitations: Vec<Limitation>,
    redactions: Vec<Redaction>,
}

impl ExtractionParts {
    fn into_extraction(self, records: Vec<CaptureRecord>) -> Extraction {
        Extraction {
            container: self.container,
            limitations: self.limitations,
            records,
            records_pointer: RECORDS_POINTER.to_owned(),
            redactions: self.redactions,
            schema_version: SCHEMA_VERSION,
        }
    }

    /// The extraction's JSON text around records already encoded (`record,record,…`, in a
    /// buffer that becomes the answer), in the member order and spelling serde_json gives
    /// [`Extraction`].
    fn into_json_text(self, records: Vec<u8>) -> Result<String, String> {
        let mut head = String::with_capacity(self.container.get().len() + 256);
        head.push_str("{\"container\":");
        head.push_str(self.container.get());
        head.push_str(",\"limitations\":");
        head.push_str(&encode(&self.limitations)?);
        head.push_str(",\"records\":[");
        let mut tail = String::from("],\"records_pointer\":");
        tail.push_str(&encode(RECORDS_POINTER)?);
        tail.push_str(",\"redactions\":");
        tail.push_str(&encode(&self.redactions)?);
        tail.push_str(&format!(",\"schema_version\":{SCHEMA_VERSION}}}"));
        let mut text = records;
        text.reserve(head.len() + tail.len());
        text.splice(0..0, head.bytes());
        text.extend_from_slice(tail.as_bytes());
        String::from_utf8(text).map_err(|error| error.to_string())
    }
}

fn encode<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, String> {
    serde_json::to_string(value).map_err(|error| error.to_string())
}

fn extract_checked(
    request: &ExtractRequest,
    bytes: &[u8],
    sensitive: &Sensitive,
    on_record: &mut dyn FnMut(CaptureRecord, usize),
) -> Result<ExtractionParts, HarRefusal> {
    if request.input_kind != INPUT_KIND {
        return Err(HarRefusal::unsupported(
            format!(
                "the HAR extractor reads `{INPUT_KIND}` inputs, not `{}`",
                request.input_kind
            ),
            None,
        ));
    }
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(HarRefusal::resource(
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
    let mut redactions = Vec::new();
    let mut first_entry_error: Option<HarRefusal> = None;
    let streamed = json::parse_streaming(
        bytes,
        &options,
        ItemStream {
            path: &["log", "entries"],
            string_limit: usize::MAX,
            on_item: &mut |index, item, range| {
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
                    Ok(record) => on_record(record, range.end),
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
        .map_err(|error| {
            HarRefusal::internal(format!("the container did not serialize: {error}"))
        })?;
    Ok(ExtractionParts {
        container,
        limitations: limitations.into_list(),
        redactions,
    })
}

fn json_refusal(error: json::JsonError) -> HarRefusal {
    let pointer = Some(error.pointer.clone());
    match error.kind {
        JsonErrorKind::TooDeep { .. } => HarRefusal::resource(
            format!("the capture is refused: {}", error.describe()),
            pointer,
        ),
        JsonErrorKind::DuplicateKey => HarRefusal::input(
            format!("the capture is refused: {}", error.describe()),
            pointer,
        ),
        _ => HarRefusal::input(
            format!("the capture is not JSON: {}", error.describe()),
            pointer,
        ),
    }
}

/// Checks the container (`log` and its standard members) and replaces `log.entries` (already
/// streamed into records) by `null`.
fn check_container(document: &mut Json) -> Result<(), HarRefusal> {
    let Json::Object(root) = document else {
        return Err(HarRefusal::input(
            format!(
                "the capture is not a HAR document: its top level is {}, not an object with `log`",
                article(document.type_name())
            ),
            Some(String::new()),
        ));
    };
    let Some(log) = root.get_mut("log") else {
        return Err(HarRefusal::input(
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
            return Err(HarRefusal::unsupported(
                format!("only HAR {HAR_VERSION} is accepted; `log.version` names another version"),
                Some("/log/version".to_owned()),
            ));
        }
        Some(other) => return Err(Fields::wrong_type("/log/version", "a string", other)),
        None => {
            return Err(HarRefusal::unsupported(
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
        None => Err(HarRefusal::input(
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

#[cfg(test)]
mod text_tests {
    use super::*;

    fn shared_captures() -> Vec<std::path::PathBuf> {
        let shared = std::env::var_os("REA_SHARED_DIR").map_or_else(
            || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
            std::path::PathBuf::from,
        );
        let mut files = Vec::new();
        for app in std::fs::read_dir(shared.join("captures")).expect("shared captures") {
            for file in std::fs::read_dir(app.expect("entry").path()).expect("app folder") {
                let path = file.expect("entry").path();
                if path.extension().is_some_and(|ext| ext == "har") {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }

    #[test]
    fn the_pipelined_text_is_exactly_the_encoded_extraction() {
        for sensitive_values in [Vec::new(), vec!["127.0.0.1".to_owned()]] {
            let request = ExtractRequest {
                input_kind: INPUT_KIND.to_owned(),
                sensitive_values,
                schema_version: SCHEMA_VERSION,
            };
            let mut compared = 0;
            for path in shared_captures() {
                let bytes = std::fs::read(&path).expect("capture");
                match (
                    extract(&request, &bytes),
                    extract_json(&request, &bytes, &mut |_| {}),
                ) {
                    (Ok(extraction), Ok(text)) => {
                        let encoded = serde_json::to_string(&extraction).expect("encodes");
                        assert!(encoded == text, "{} differs", path.display());
                        compared += 1;
                    }
                    (Err(typed), Err(text)) => assert_eq!(typed, text, "{}", path.display()),
                    (typed, text) => panic!(
                        "{}: typed {:?} vs text {:?}",
                        path.display(),
                        typed.is_ok(),
                        text.is_ok()
                    ),
                }
            }
            assert!(compared > 10, "only {compared} captures compared");
        }
    }
}

#[cfg(test)]
mod progress_tests {
    use super::*;

    fn request() -> ExtractRequest {
        ExtractRequest {
            input_kind: INPUT_KIND.to_owned(),
            sensitive_values: Vec::new(),
            schema_version: SCHEMA_VERSION,
        }
    }

    const ENTRY: &str =
        r#"{"request":{"method":"GET","url":"http://127.0.0.1:9/a"},"response":{"status":200}}"#;

    #[test]
    fn the_bytes_read_are_reported_after_each_entry_and_at_the_end() {
        let har = format!(r#"{{"log":{{"version":"1.2","entries":[{ENTRY},{ENTRY},{ENTRY}]}}}}"#);
        let mut heard = Vec::new();
        extract_json(&request(), har.as_bytes(), &mut |read| heard.push(read)).expect("extracts");
        // Each entry's end, then the whole file.
        let first_end = (har.find(ENTRY).unwrap() + ENTRY.len()) as u64;
        let step = ENTRY.len() as u64 + 1;
        assert_eq!(
            heard,
            [
                first_end,
                first_end + step,
                first_end + 2 * step,
                har.len() as u64
            ]
        );
    }

    #[test]
    fn a_refused_capture_never_reports_the_whole_file_read() {
        let har = format!(r#"{{"log":{{"version":"1.1","entries":[{ENTRY}]}}}}"#);
        let mut heard = Vec::new();
        assert!(extract_json(&request(), har.as_bytes(), &mut |read| heard.push(read)).is_err());
        assert!(
            heard.iter().all(|&read| read < har.len() as u64),
            "{heard:?}"
        );
    }
}

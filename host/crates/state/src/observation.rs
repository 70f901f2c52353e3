//! Observations: the capture records a manifest tool cites, prepared once for the state view (the
//! tool they belong to, the request line split into segments and decoded query pairs, the status,
//! and the response body parsed as JSON with its number lexemes kept), and the timeline that says
//! which of them the state may learn from.
//!
//! # Record order
//!
//! Records are ordered by their parsed start instant (ties by ordinal) when every cited record has
//! one; when any start time is missing or did not parse, the whole capture is taken in record
//! order instead, so one unusable time never reorders the others.
//!
//! # The first related write
//!
//! The state holds what reads observed **before the first related write**. A write is a record of
//! a write tool (`POST`, `PUT`, `PATCH`, `DELETE` or another unsafe method, query `POST`s
//! excepted) that did not answer `4xx`/`5xx`. [`Timeline::new`] starts conservatively: the first
//! write of any kind ends every read's window ([`Timeline::first_write`], [`Timeline::cutoff`]).
//! Extraction then narrows each read's window to the writes related to what the read shows
//! ([`Timeline::set_windows`], decided in [`crate::derive::windows`]): each observation carries
//! the position its window ends at, so a read of one type after a write of another still seeds
//! and checks the state. Windows are set on the one timeline, never on a copy of it: its parsed
//! bodies are the derivation's largest holding (issue 17).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rea_manifest::catalog::{is_query_post, is_safe_method};
use rea_manifest::media::is_json_like;
use rea_manifest::segments::{percent_decode, split_path};
use rea_manifest::{Manifest, ManifestTool};
use rea_plugin_api::contracts::capture::{Body, CaptureRecord, CompactString};
use rea_plugin_api::json::{self, Json};
use rea_plugin_api::query_lists::fold_list_names;
use serde::{Deserialize, Serialize};

use crate::exact::first_inexact_number;

/// Query pairs with a field selection spelled as flags folded into its comma list (see
/// [`rea_plugin_api::query_lists::fold_flags`]).
fn fold_selection_flags(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let arguments = pairs
        .into_iter()
        .map(|(name, value)| (name, vec![value]))
        .collect();
    rea_plugin_api::query_lists::fold_flags(arguments, crate::query::is_projection)
        .into_iter()
        .map(|(name, mut values)| (name, values.remove(0)))
        .collect()
}

/// How records are ordered in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordOrder {
    /// By parsed start instant, ties by ordinal.
    StartInstant,
    /// By ordinal: some cited record had no usable start time.
    RecordOrder,
}

/// A decoded query: `[name, value]` pairs in request order.
pub type QueryPairs = Vec<(String, String)>;

/// One cited record, prepared.
#[derive(Debug, Clone)]
pub struct Observation {
    /// The record's ordinal.
    pub ordinal: u64,
    /// Index of the citing tool in the manifest.
    pub tool: usize,
    /// The recorded path, as written.
    pub path: CompactString,
    /// The path's segments as written (see [`split_path`]).
    pub segments: Vec<CompactString>,
    /// The decoded query pairs, each list name's values folded into one comma list
    /// ([`fold_list_names`]); `None` when the URL had no `?`.
    pub query: Option<QueryPairs>,
    /// Whether some query pair was withheld (a sensitive value): such a line is never modelled.
    pub query_withheld: bool,
    /// The recorded status (0: no answer).
    pub status: u16,
    /// The response body as JSON, when the media type is JSON-like, the text parses strictly and
    /// every number is exact (see [`crate::exact`]).
    pub body: Option<Json>,
    /// The size of the recorded response text, in bytes.
    pub body_bytes: usize,
    /// Position in record order (see the module docs).
    pub position: usize,
    /// The request method as recorded.
    pub method: CompactString,
    /// The request body: `Missing` when none was recorded (or it is empty), `Json` when it parses
    /// as exact JSON, `Unusable` otherwise (another media type, invalid JSON, inexact numbers, or
    /// a body excluded as sensitive).
    pub request: RequestBody,
    /// The record's start instant (`YYYY-MM-DDTHH:MM:SS.fffffffffZ`), when recorded.
    pub started: Option<CompactString>,
    /// The record's duration in milliseconds, when recorded.
    pub duration_ms: Option<f64>,
    /// The position the observation window of this record ends at: the first write related to
    /// what it shows (`usize::MAX` without one). A read is checked (the state learns from it)
    /// before it.
    pub window_end: usize,
}

/// A write's request body, as the write plans read it.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestBody {
    /// No body (none recorded, or an empty one).
    Missing,
    /// A JSON body.
    Json(Json),
    /// A body the plans cannot model.
    Unusable,
}

impl Observation {
    /// The query pairs (empty without a query).
    pub fn pairs(&self) -> &[(String, String)] {
        self.query.as_deref().unwrap_or(&[])
    }

    /// Whether the status is `2xx`.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The answer's body when the status is `2xx`.
    pub fn success_body(&self) -> Option<&Json> {
        self.body.as_ref().filter(|_| self.is_success())
    }

    /// The line key: path and query as written, which tells distinct request lines apart.
    pub fn line_key(&self) -> (String, Vec<(String, String)>) {
        (self.path.to_string(), self.pairs().to_vec())
    }
}

/// Every cited record, prepared, with the observation window.
#[derive(Debug, Clone)]
pub struct Timeline {
    /// The observations by ordinal.
    pub by_ordinal: BTreeMap<u64, Observation>,
    /// Per manifest tool, its observations' ordinals in record order.
    pub by_tool: Vec<Vec<u64>>,
    /// How records are ordered.
    pub order: RecordOrder,
    /// The first write of any kind (see the module docs), by ordinal: the replay of writes
    /// starts there.
    pub first_write: Option<u64>,
    /// Its position in record order (`usize::MAX` without one).
    pub cutoff: usize,
    /// The position of the first read: a write before it whose effect the state does not model
    /// (a session's log-in) relates to no read (see [`crate::derive::windows`]).
    pub first_read: usize,
    /// The observations' ordinals in record order (index: position).
    pub ordered: Vec<u64>,
    /// The `POST` tools the capture shows only reading (see [`reading_posts`]): read tools that
    /// answer from their recordings (`query-body`), not writes.
    pub reading_posts: BTreeSet<usize>,
}

/// The order of the cited records (sorted by ordinal): by start instant (ties by ordinal) when
/// every one has one, else as recorded; the indexes into `cited` in that order.
fn record_order(cited: &[&CaptureRecord]) -> (RecordOrder, Vec<usize>) {
    let instants: Option<Vec<&str>> = cited
        .iter()
        .map(|record| {
            record
                .started
                .as_ref()
                .and_then(|start| start.instant.as_deref())
        })
        .collect();
    let mut ordered: Vec<usize> = (0..cited.len()).collect();
    let Some(instants) = &instants else {
        return (RecordOrder::RecordOrder, ordered);
    };
    ordered.sort_by(|a, b| {
        instants[*a]
            .cmp(instants[*b])
            .then(cited[*a].ordinal.cmp(&cited[*b].ordinal))
    });
    (RecordOrder::StartInstant, ordered)
}

/// The first successful call of a write tool the capture does not show only reading:
/// `(ordinal, position)`.
fn first_write(
    manifest: &Manifest,
    by_ordinal: &BTreeMap<u64, Observation>,
    reading: &BTreeSet<usize>,
) -> Option<(u64, usize)> {
    by_ordinal
        .values()
        .filter(|observation| {
            !reading.contains(&observation.tool)
                && is_write_tool(&manifest.tools[observation.tool])
                && !(400..600).contains(&observation.status)
        })
        .min_by_key(|observation| observation.position)
        .map(|observation| (observation.ordinal, observation.position))
}

/// The position of the first read (a call of a read tool, or of a `POST` tool the capture shows
/// only reading); 0 without one. A write before it whose effect the state does not model (a
/// session's log-in) relates to no read (see [`crate::derive::windows`]).
fn first_read(
    manifest: &Manifest,
    by_ordinal: &BTreeMap<u64, Observation>,
    reading: &BTreeSet<usize>,
) -> usize {
    by_ordinal
        .values()
        .filter(|observation| {
            reading.contains(&observation.tool) || !is_write_tool(&manifest.tools[observation.tool])
        })
        .map(|observation| observation.position)
        .min()
        .unwrap_or(0)
}

impl Timeline {
    /// Prepares the records a manifest's tools cite.
    pub fn new(manifest: &Manifest, records: &[CaptureRecord]) -> Self {
        let mut citing: BTreeMap<u64, usize> = BTreeMap::new();
        for (index, tool) in manifest.tools.iter().enumerate() {
            for ordinal in &tool.record_ordinals {
                citing.entry(*ordinal).or_insert(index);
            }
        }
        let mut cited: Vec<&CaptureRecord> = records
            .iter()
            .filter(|record| citing.contains_key(&record.ordinal))
            .collect();
        cited.sort_by_key(|record| record.ordinal);
        cited.dedup_by_key(|record| record.ordinal);
        let (order, ordered) = record_order(&cited);
        let mut observed = Vec::with_capacity(ordered.len());
        let mut by_tool: Vec<Vec<(usize, u64)>> = vec![Vec::new(); manifest.tools.len()];
        // Answers repeat objects (a list shows what its items' reads answered): each is held once.
        let mut objects = json::SharedObjects::new();
        for (position, index) in ordered.iter().enumerate() {
            let record = cited[*index];
            let tool = citing[&record.ordinal];
            let Some(observation) = observe(record, tool, position, &mut objects) else {
                continue;
            };
            by_tool[tool].push((position, record.ordinal));
            observed.push((record.ordinal, observation));
        }
        // Built in one piece from the list (its nodes full): a map grown one ascending insert at a
        // time leaves its nodes about half full, and the observations are the derivation's
        // largest holding (issue 17). The ordinals are unique (`cited` is deduplicated).
        let mut by_ordinal: BTreeMap<u64, Observation> = observed.into_iter().collect();
        let by_tool: Vec<Vec<u64>> = by_tool
            .into_iter()
            .map(|mut list| {
                list.sort();
                list.into_iter().map(|(_, ordinal)| ordinal).collect()
            })
            .collect();
        let reading = reading_posts(manifest, &by_ordinal, &by_tool);
        let first_read = first_read(manifest, &by_ordinal, &reading);
        let first_write = first_write(manifest, &by_ordinal, &reading);
        let cutoff = first_write.map_or(usize::MAX, |(_, position)| position);
        for observation in by_ordinal.values_mut() {
            observation.window_end = cutoff;
        }
        let mut ordered: Vec<(usize, u64)> = by_ordinal
            .values()
            .map(|observation| (observation.position, observation.ordinal))
            .collect();
        ordered.sort_unstable();
        let mut timeline = Self {
            by_ordinal,
            by_tool,
            order,
            first_write: first_write.map(|(ordinal, _)| ordinal),
            cutoff,
            first_read,
            ordered: ordered.into_iter().map(|(_, ordinal)| ordinal).collect(),
            reading_posts: reading,
        };
        // A document its own path writes is seen until the first write of that path.
        let own_path = crate::derive::windows::own_path_ends(manifest, &timeline);
        timeline.with_windows_in_place(own_path.into_iter());
        timeline
    }

    /// Sets the windows of the observations named (ordinal, end position).
    fn with_windows_in_place(&mut self, ends: impl Iterator<Item = (u64, usize)>) {
        for (ordinal, end) in ends {
            if let Some(observation) = self.by_ordinal.get_mut(&ordinal) {
                observation.window_end = end;
            }
        }
    }

    /// Whether a manifest tool (by index) writes: a write tool by its method and name
    /// ([`is_write_tool`]) that the capture does not show only reading.
    pub fn is_write(&self, manifest: &Manifest, tool: usize) -> bool {
        !self.reading_posts.contains(&tool) && is_write_tool(&manifest.tools[tool])
    }

    /// The observation of an ordinal.
    pub fn get(&self, ordinal: u64) -> Option<&Observation> {
        self.by_ordinal.get(&ordinal)
    }

    /// Whether an observation lies in its observation window (before the first write related
    /// to what it shows).
    pub fn is_checked(&self, observation: &Observation) -> bool {
        observation.position < observation.window_end
    }

    /// Ends each observation's window where `window_ends` says (ordinal → position); observations
    /// it does not name keep theirs. Setting [`Timeline::window_ends`] taken earlier restores them.
    pub fn set_windows(&mut self, window_ends: &BTreeMap<u64, usize>) {
        self.with_windows_in_place(window_ends.iter().map(|(ordinal, end)| (*ordinal, *end)));
    }

    /// Each observation's window end (ordinal → position).
    pub fn window_ends(&self) -> BTreeMap<u64, usize> {
        self.by_ordinal
            .iter()
            .map(|(ordinal, observation)| (*ordinal, observation.window_end))
            .collect()
    }

    /// The timeline of a derived state: the records a manifest's tools cite, with the windows the
    /// state's related writes decided.
    pub fn for_state(
        manifest: &Manifest,
        records: &[CaptureRecord],
        state: &crate::model::StateView,
    ) -> Self {
        let mut timeline = Self::new(manifest, records);
        let ends = crate::derive::windows::window_ends(
            manifest,
            &timeline,
            &state.views,
            &state.related_writes,
            &state.types,
        );
        timeline.set_windows(&ends);
        timeline
    }

    /// A tool's observations in the observation window, in record order.
    pub fn checked(&self, tool: usize) -> impl Iterator<Item = &Observation> {
        self.by_tool[tool]
            .iter()
            .filter_map(|ordinal| self.by_ordinal.get(ordinal))
            .filter(|observation| self.is_checked(observation))
    }

    /// A tool's observations, in record order.
    pub fn all(&self, tool: usize) -> impl Iterator<Item = &Observation> {
        self.by_tool[tool]
            .iter()
            .filter_map(|ordinal| self.by_ordinal.get(ordinal))
    }
}

/// Whether a manifest tool writes by its method and name: an unsafe method that is not a query
/// `POST`. ([`Timeline::is_write`] also leaves out the `POST` tools the capture shows only
/// reading.)
pub fn is_write_tool(tool: &ManifestTool) -> bool {
    !is_safe_method(&tool.method) && !is_query_post(&tool.method, &tool.path_template)
}

/// Words of operation names that read.
const READ_VERBS: [&str; 14] = [
    "get", "list", "search", "find", "query", "read", "fetch", "describe", "count", "lookup",
    "show", "view", "info", "check",
];

/// Words of operation names that change something.
const WRITE_VERBS: [&str; 44] = [
    "create", "add", "insert", "new", "update", "set", "put", "patch", "edit", "modify", "change",
    "delete", "remove", "destroy", "drop", "clear", "reset", "write", "save", "upsert", "send",
    "post", "move", "rename", "archive", "restore", "import", "upload", "start", "stop", "run",
    "execute", "exec", "apply", "enable", "disable", "toggle", "mark", "assign", "approve",
    "reject", "submit", "cancel", "sync",
];

/// Literal path words that name a session renewal by themselves.
const KEEPALIVE_WORDS: [&str; 2] = ["keepalive", "heartbeat"];

/// Literal path words that name a renewal ...
const RENEWAL_WORDS: [&str; 2] = ["refresh", "renew"];

/// ... of a session (`/auth/token/refresh`; a feed's `refresh` fetches, so it writes).
const SESSION_WORDS: [&str; 6] = ["session", "token", "auth", "jwt", "oauth", "access"];

/// Request body members that name an RPC tunnel's operation.
const OPERATION_MEMBERS: [&str; 6] = [
    "method",
    "operation",
    "operationName",
    "action",
    "op",
    "procedure",
];

/// The lower-case words of a name (`getUser`, `eth_getBalance`, `users.list`).
fn words(name: &str) -> Vec<String> {
    rea_manifest::naming::snake_case(name)
        .split('_')
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether an operation name reads: it names a read verb and no write verb.
fn names_a_read(name: &str) -> bool {
    let words = words(name);
    words.iter().any(|word| READ_VERBS.contains(&word.as_str()))
        && !words
            .iter()
            .any(|word| WRITE_VERBS.contains(&word.as_str()))
}

/// Whether a member name names an identity (`id`, `uuid`, `…_id`, `…Id`).
fn identity_named(name: &str) -> bool {
    matches!(name, "id" | "uuid" | "guid" | "_id")
        || name.ends_with("_id")
        || name.ends_with("Id")
        || name.ends_with("_uuid")
}

/// Whether a JSON body shows something a lookup finds: objects carrying an identity (at the top
/// or one level down, as in `{"data": {…}}` or `{"items": [{…}]}`), not an acknowledgment such as
/// `{}` or `{"ok": true}` that many writes answer too.
fn shows_entities(body: &Json) -> bool {
    let identified = |value: &Json| {
        value
            .as_object()
            .is_some_and(|object| object.keys().any(identity_named))
    };
    match body {
        Json::Object(object) => {
            object.keys().any(identity_named)
                || object.iter().any(|(_, value)| match value {
                    Json::Array(items) => !items.is_empty() && items.iter().all(identified),
                    other => identified(other),
                })
        }
        Json::Array(items) => !items.is_empty() && items.iter().all(identified),
        _ => false,
    }
}

/// The `POST` tools the capture shows only reading (`STATE-098`), which stay read tools answering
/// from their recordings (`query-body`) and are not writes: a session renewal (a literal path
/// word `keepalive` or `heartbeat`, or `refresh` or `renew` with `session`, `token`, `auth`,
/// `jwt`, `oauth` or `access`), or a tool each of whose
/// successful calls is a lookup answering as a `GET` did (the same JSON, showing identified
/// objects, an earlier `GET` answered) or names a read operation in an RPC tunnel (a body member `method`,
/// `operation`, `operationName`, `action`, `op` or `procedure` whose words hold a read verb such
/// as `get` or `list` and no write verb). A tool without a successful call shows nothing.
pub fn reading_posts(
    manifest: &Manifest,
    by_ordinal: &BTreeMap<u64, Observation>,
    by_tool: &[Vec<u64>],
) -> BTreeSet<usize> {
    let gets: Vec<&Observation> = by_ordinal
        .values()
        .filter(|observation| {
            manifest.tools[observation.tool]
                .method
                .eq_ignore_ascii_case("GET")
                && observation.is_success()
        })
        .collect();
    let mut reading = BTreeSet::new();
    for (index, tool) in manifest.tools.iter().enumerate() {
        if !tool.method.eq_ignore_ascii_case("POST") || !is_write_tool(tool) {
            continue;
        }
        let successes: Vec<&Observation> = by_tool[index]
            .iter()
            .filter_map(|ordinal| by_ordinal.get(ordinal))
            .filter(|observation| observation.is_success())
            .collect();
        if successes.is_empty() {
            continue;
        }
        let path_words: BTreeSet<String> = tool
            .path_template
            .split('/')
            .filter(|segment| !segment.starts_with('{'))
            .flat_map(words)
            .collect();
        let has = |list: &[&str]| list.iter().any(|word| path_words.contains(*word));
        let renewal = has(&KEEPALIVE_WORDS) || (has(&RENEWAL_WORDS) && has(&SESSION_WORDS));
        let reads = |call: &&Observation| {
            let lookup = call.body.as_ref().is_some_and(|body| {
                shows_entities(body)
                    && gets
                        .iter()
                        .any(|get| get.position < call.position && get.body.as_ref() == Some(body))
            });
            let operation = match &call.request {
                RequestBody::Json(Json::Object(request)) => OPERATION_MEMBERS
                    .iter()
                    .find_map(|member| request.get(member).and_then(Json::as_str))
                    .is_some_and(names_a_read),
                _ => false,
            };
            lookup || operation
        };
        if renewal || successes.iter().all(reads) {
            reading.insert(index);
        }
    }
    reading
}

fn observe(
    record: &CaptureRecord,
    tool: usize,
    position: usize,
    objects: &mut json::SharedObjects,
) -> Option<Observation> {
    let path = record.path.clone()?;
    let segments = split_path(&path)
        .into_iter()
        .map(CompactString::from)
        .collect();
    let (query, query_withheld) = match &record.query {
        None => (None, false),
        Some(query) => {
            let withheld = query.pairs.iter().any(Option::is_none);
            (
                Some(fold_selection_flags(fold_list_names(
                    &query.pairs.iter().flatten().cloned().collect::<Vec<_>>(),
                ))),
                withheld,
            )
        }
    };
    let (body, body_bytes) = parse_body(
        &record.response.body,
        record.response.media_type.as_deref(),
        objects,
    );
    Some(Observation {
        ordinal: record.ordinal,
        tool,
        path,
        segments,
        query,
        query_withheld,
        status: record.response.status,
        body,
        body_bytes,
        position,
        method: record.method.clone().unwrap_or_default(),
        request: request_body(&record.request.body, record.request.media_type.as_deref()),
        started: record
            .started
            .as_ref()
            .and_then(|start| start.instant.clone()),
        duration_ms: record.duration_ms,
        window_end: usize::MAX,
    })
}

/// A request body as JSON: read by its media type when it names JSON, by its shape when it names
/// none (or a blank one); an empty body is no body.
fn request_body(body: &Body, media_type: Option<&str>) -> RequestBody {
    match body {
        Body::Missing | Body::ReportedNull => return RequestBody::Missing,
        Body::Excluded { .. } => return RequestBody::Unusable,
        Body::Text { .. } | Body::Base64 { .. } => {}
    }
    let Some(bytes) = body.bytes() else {
        return RequestBody::Unusable;
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return RequestBody::Missing;
    }
    let named = media_type.is_some_and(|media| !media.trim().is_empty());
    if named && !is_json_like(media_type) {
        return RequestBody::Unusable;
    }
    match json::parse(&bytes) {
        Ok(value) if first_inexact_number(&value).is_none() => RequestBody::Json(value),
        _ => RequestBody::Unusable,
    }
}

/// The response body as exact JSON, when replay would answer it as JSON too; its objects shared
/// with the earlier answers that spelled them alike.
fn parse_body(
    body: &Body,
    media_type: Option<&str>,
    objects: &mut json::SharedObjects,
) -> (Option<Json>, usize) {
    let Some(bytes) = body.bytes() else {
        return (None, 0);
    };
    let size = bytes.len();
    if !is_json_like(media_type) {
        return (None, size);
    }
    // A text body is the parse's source: its long strings are ranges of the recorded text, which
    // the records hold anyway, not copies of it (issue 17).
    let parsed = match body {
        Body::Text { text } => {
            json::parse_shared_text(&json::SourceText::new(Arc::clone(text)), objects)
        }
        _ => json::parse_sharing(&bytes, objects),
    };
    let Ok(value) = parsed else {
        return (None, size);
    };
    if first_inexact_number(&value).is_some() {
        return (None, size);
    }
    (Some(value), size)
}

/// A path segment's value: percent-decoded when that yields UTF-8, as written otherwise.
pub fn decoded(segment: &str) -> String {
    percent_decode(segment).map_or_else(|| segment.to_owned(), |value| value.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_body_s_long_strings_are_read_from_the_body_not_copied() {
        let text: Arc<str> = Arc::from(r#"{"id":1,"body":"a text longer than twenty-two bytes"}"#);
        let body = Body::text_of(Arc::clone(&text));
        let held = Arc::strong_count(&text);
        let (parsed, size) = parse_body(
            &body,
            Some("application/json"),
            &mut json::SharedObjects::new(),
        );
        let parsed = parsed.expect("a JSON body");
        assert_eq!(size, text.len());
        assert_eq!(parsed, json::parse(text.as_bytes()).unwrap());
        // The parse holds the body's text (once, through its source), not a copy of the string.
        assert_eq!(Arc::strong_count(&text), held + 1);
        drop(parsed);
        assert_eq!(Arc::strong_count(&text), held);
    }
}

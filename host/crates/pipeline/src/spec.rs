//! Parsing a pipeline file into a [`PipelineSpec`], collecting every problem with its position.
//!
//! The file's shape:
//!
//! ```toml
//! version = 1                                  # optional; the only version is 1
//! [[plugins]]                                  # external plugin libraries, loaded in order
//! path = "plugins/librevision.so"              # relative to the pipeline file's folder
//! sha256 = "…"                                 # optional pin
//! [capture.extractors]                         # input kind -> capture stage
//! har = "har"
//! [manifest]
//! template_rules = ["after-uid-literal"]       # applied in the views' fixed order
//! route_forms = ["fused-affix"]                # route-form stages, run in this order after them
//!                                              # (absent: the built-in default; [] runs none)
//! sibling_transfer = false                     # opt-in: offer confirmed writes on sibling
//!                                              # collections of the same route family (inferred)
//! [state]
//! query_grammars = ["field-affixes"]           # query-grammar stages, in order (absent: the
//!                                              # built-in default, where the registry holds it)
//! [[rules]]                                    # state rules, in order
//! stage = "revision"
//! options = { field = "version" }              # names and values checked by the stage
//! [serve]
//! host = "127.0.0.1"
//! port = 0
//! withheld = "hide"                            # withheld writes: "hide", "refuse" or "replay"
//! ```

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::diagnostic::{Diagnostic, PipelineErrors};

/// The opt-in template rules, in the fixed order the views apply them.
pub const TEMPLATE_RULES: [&str; 4] = [
    "after-uid-literal",
    "opaque-token",
    "sibling-variance",
    "prefix-variance",
];

/// A parsed (not yet resolved) pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineSpec {
    /// The file, or `<default pipeline>`.
    pub origin: String,
    /// External libraries in file order.
    pub libraries: Vec<LibrarySpec>,
    /// Capture extractor bindings, in input-kind order.
    pub capture: Vec<CaptureBinding>,
    /// Template rules in the views' fixed order.
    pub template_rules: Vec<String>,
    /// Route-form stages in file order, each with its name's position; `None` when the pipeline
    /// names none (the built-in default then runs where the registry holds it, as for query
    /// grammars: an absent stage list runs the default, `[]` runs none).
    pub route_forms: Option<Vec<(String, usize)>>,
    /// `[manifest] sibling_transfer`: offer write tools on sibling collections (opt-in).
    pub sibling_transfer: bool,
    /// State rules in file order.
    pub rules: Vec<RuleSpec>,
    /// The query-grammar stages `[state] query_grammars` names, in order, each with its byte
    /// offset; `None` when the pipeline names none (the built-in default then runs where the
    /// registry holds it).
    pub query_grammars: Option<Vec<(String, usize)>>,
    /// Serve settings.
    pub serve: ServeSpec,
    line_starts: Vec<usize>,
    text: String,
}

/// An external plugin library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibrarySpec {
    /// Resolved path.
    pub path: PathBuf,
    /// Pinned SHA-256 (lower-case hex).
    pub sha256: Option<String>,
    /// Byte offset of the `path` value.
    pub position: usize,
}

/// An input kind bound to a capture stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureBinding {
    /// Input kind (`har`).
    pub input: String,
    /// Stage name.
    pub stage: String,
    /// Byte offset of the binding.
    pub position: usize,
}

/// A state rule step.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleSpec {
    /// Stage name.
    pub stage: String,
    /// Options as JSON.
    pub options: BTreeMap<String, serde_json::Value>,
    /// Byte offset of each option key.
    pub option_positions: Vec<(String, usize)>,
    /// Byte offset of each option value and of every value inside it, by JSON pointer into the
    /// options (`/fields`, `/fields/1`); the empty pointer is the `options` table itself.
    pub value_positions: BTreeMap<String, usize>,
    /// Byte offset of the `stage` value.
    pub position: usize,
}

impl RuleSpec {
    /// Where a problem with the option value at `pointer` is reported: that value, else the
    /// nearest value holding it, else the `stage` value.
    pub fn value_position(&self, pointer: &str) -> usize {
        let mut at = pointer;
        loop {
            if let Some(position) = self.value_positions.get(at) {
                return *position;
            }
            match at.rfind('/') {
                Some(slash) => at = &at[..slash],
                None => return self.position,
            }
        }
    }
}

/// Records the position of `value` at `pointer` and of every value inside it.
fn record_positions(
    value: &Spanned<DeValue<'_>>,
    pointer: String,
    positions: &mut BTreeMap<String, usize>,
) {
    match value.get_ref() {
        DeValue::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                record_positions(item, format!("{pointer}/{index}"), positions);
            }
        }
        DeValue::Table(table) => {
            for (key, item) in table.iter() {
                let token = key.get_ref().replace('~', "~0").replace('/', "~1");
                record_positions(item, format!("{pointer}/{token}"), positions);
            }
        }
        _ => {}
    }
    positions.insert(pointer, value.span().start);
}

/// Serve settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServeSpec {
    /// Host to bind (the command line and `MCP_HOST` take precedence).
    pub host: Option<String>,
    /// Port to bind (the command line and `MCP_PORT` take precedence).
    pub port: Option<u16>,
    /// What a state environment does with the write tools whose plan is withheld.
    pub withheld: WithheldWrites,
}

/// What a state environment does with a write tool whose plan is withheld (`[serve] withheld`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WithheldWrites {
    /// Not listed (the spec's default).
    #[default]
    Hide,
    /// Listed; a call answers a structured `not_served` error with the reason and hint.
    Refuse,
    /// Listed; a call answers its recording, changing no state (its `state` says so).
    Replay,
}

impl WithheldWrites {
    /// Its spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Hide => "hide",
            Self::Refuse => "refuse",
            Self::Replay => "replay",
        }
    }

    /// The mode a spelling names.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "hide" => Some(Self::Hide),
            "refuse" => Some(Self::Refuse),
            "replay" => Some(Self::Replay),
            _ => None,
        }
    }
}

impl PipelineSpec {
    /// A diagnostic at a byte offset of this file.
    pub fn at(&self, position: usize, code: &str, message: String) -> Diagnostic {
        let (line, column) = line_column(&self.line_starts, &self.text, position);
        Diagnostic {
            origin: self.origin.clone(),
            line: Some(line),
            column: Some(column),
            code: code.to_owned(),
            message,
        }
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(index, _)| index + 1))
        .collect()
}

fn line_column(starts: &[usize], text: &str, offset: usize) -> (usize, usize) {
    let line = match starts.binary_search(&offset) {
        Ok(index) => index,
        Err(index) => index.saturating_sub(1),
    };
    let start = starts.get(line).copied().unwrap_or(0);
    let end = offset.min(text.len());
    let column = text
        .get(start..end)
        .map_or(1, |prefix| prefix.chars().count() + 1);
    (line + 1, column)
}

struct Collector<'a> {
    origin: &'a str,
    text: &'a str,
    starts: Vec<usize>,
    problems: Vec<(usize, Diagnostic)>,
}

impl Collector<'_> {
    fn push(&mut self, position: usize, code: &str, message: String) {
        let (line, column) = line_column(&self.starts, self.text, position);
        self.problems.push((
            position,
            Diagnostic {
                origin: self.origin.to_owned(),
                line: Some(line),
                column: Some(column),
                code: code.to_owned(),
                message,
            },
        ));
    }

    fn unknown_keys(&mut self, table: &DeTable<'_>, context: &str, allowed: &[&str]) {
        for (key, _) in table.iter() {
            if !allowed.contains(&key.get_ref().as_ref()) {
                self.push(
                    key.span().start,
                    "unknown_key",
                    format!(
                        "unknown key `{}` in {context} (allowed: {})",
                        key.get_ref(),
                        allowed.join(", ")
                    ),
                );
            }
        }
    }

    fn wrong_type(&mut self, span: Range<usize>, what: &str, expected: &str, value: &DeValue<'_>) {
        self.push(
            span.start,
            "wrong_type",
            format!("{what} must be {expected}, not {}", type_name(value)),
        );
    }

    fn string(&mut self, value: &Spanned<DeValue<'_>>, what: &str) -> Option<String> {
        match value.get_ref() {
            DeValue::String(text) => Some(text.to_string()),
            other => {
                self.wrong_type(value.span(), what, "a string", other);
                None
            }
        }
    }
}

fn type_name(value: &DeValue<'_>) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a datetime",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn get<'t, 'i>(table: &'t DeTable<'i>, key: &str) -> Option<&'t Spanned<DeValue<'i>>> {
    table
        .iter()
        .find(|(name, _)| name.get_ref().as_ref() == key)
        .map(|(_, value)| value)
}

fn key_span(table: &DeTable<'_>, key: &str) -> Option<usize> {
    table
        .iter()
        .find(|(name, _)| name.get_ref().as_ref() == key)
        .map(|(name, _)| name.span().start)
}

/// Parses a pipeline's text. `origin` names it in diagnostics; relative library paths are resolved
/// against `base_dir`. Every problem is collected, sorted by position.
pub fn parse(text: &str, origin: &str, base_dir: &Path) -> Result<PipelineSpec, PipelineErrors> {
    let mut collector = Collector {
        origin,
        text,
        starts: line_starts(text),
        problems: Vec::new(),
    };
    let (document, syntax_errors) = DeTable::parse_recoverable(text);
    for error in &syntax_errors {
        let position = error.span().map_or(0, |span| span.start);
        let message = error
            .message()
            .lines()
            .next()
            .unwrap_or("invalid TOML")
            .to_owned();
        collector.push(position, "invalid_toml", message);
    }
    let root = document.get_ref();
    collector.unknown_keys(
        root,
        "the pipeline",
        &[
            "version", "plugins", "capture", "manifest", "state", "rules", "serve",
        ],
    );

    if let Some(version) = get(root, "version") {
        match version.get_ref() {
            DeValue::Integer(number) if number.as_str() == "1" => {}
            DeValue::Integer(number) => collector.push(
                version.span().start,
                "unsupported_version",
                format!("pipeline version {number} is not supported (the only version is 1)"),
            ),
            other => collector.wrong_type(version.span(), "`version`", "the integer 1", other),
        }
    }

    let libraries = parse_libraries(&mut collector, root, base_dir);
    let capture = parse_capture(&mut collector, root);
    let ManifestTable {
        template_rules,
        route_forms,
        sibling_transfer,
    } = parse_manifest(&mut collector, root);
    let rules = parse_rules(&mut collector, root);
    let query_grammars = parse_state(&mut collector, root);
    let serve = parse_serve(&mut collector, root);

    if !collector.problems.is_empty() {
        let mut problems = collector.problems;
        problems.sort_by_key(|(position, _)| *position);
        return Err(PipelineErrors(
            problems.into_iter().map(|(_, d)| d).collect(),
        ));
    }
    Ok(PipelineSpec {
        origin: origin.to_owned(),
        libraries,
        capture,
        template_rules,
        route_forms,
        sibling_transfer,
        rules,
        query_grammars,
        serve,
        line_starts: collector.starts,
        text: text.to_owned(),
    })
}

fn array_of_tables<'t, 'i>(
    collector: &mut Collector<'_>,
    root: &'t DeTable<'i>,
    key: &str,
) -> Vec<&'t DeTable<'i>> {
    let Some(value) = get(root, key) else {
        return Vec::new();
    };
    let DeValue::Array(items) = value.get_ref() else {
        collector.wrong_type(
            value.span(),
            &format!("`{key}`"),
            &format!("an array of tables ([[{key}]])"),
            value.get_ref(),
        );
        return Vec::new();
    };
    let mut tables = Vec::new();
    for item in items.iter() {
        match item.get_ref() {
            DeValue::Table(table) => tables.push(table),
            other => collector.wrong_type(
                item.span(),
                &format!("each `{key}` entry"),
                "a table",
                other,
            ),
        }
    }
    tables
}

fn parse_libraries(
    collector: &mut Collector<'_>,
    root: &DeTable<'_>,
    base_dir: &Path,
) -> Vec<LibrarySpec> {
    let mut libraries = Vec::new();
    for table in array_of_tables(collector, root, "plugins") {
        collector.unknown_keys(table, "a [[plugins]] entry", &["path", "sha256"]);
        let sha256 = get(table, "sha256").and_then(|value| {
            let text = collector.string(value, "`sha256`")?;
            if text.len() == 64 && text.bytes().all(|byte| byte.is_ascii_hexdigit()) {
                Some(text.to_ascii_lowercase())
            } else {
                collector.push(
                    value.span().start,
                    "invalid_value",
                    "`sha256` must be 64 hexadecimal digits".to_owned(),
                );
                None
            }
        });
        match get(table, "path") {
            Some(value) => {
                if let Some(path) = collector.string(value, "`path`") {
                    let path = PathBuf::from(path);
                    let path = if path.is_absolute() {
                        path
                    } else {
                        base_dir.join(path)
                    };
                    libraries.push(LibrarySpec {
                        path,
                        sha256,
                        position: value.span().start,
                    });
                }
            }
            None => {
                let position = table.iter().next().map_or(0, |(key, _)| key.span().start);
                collector.push(
                    position,
                    "missing_key",
                    "a [[plugins]] entry needs a `path`".to_owned(),
                );
            }
        }
    }
    libraries
}

fn parse_capture(collector: &mut Collector<'_>, root: &DeTable<'_>) -> Vec<CaptureBinding> {
    let Some(capture) = get(root, "capture") else {
        return Vec::new();
    };
    let DeValue::Table(capture_table) = capture.get_ref() else {
        collector.wrong_type(capture.span(), "`capture`", "a table", capture.get_ref());
        return Vec::new();
    };
    collector.unknown_keys(capture_table, "[capture]", &["extractors"]);
    let Some(extractors) = get(capture_table, "extractors") else {
        return Vec::new();
    };
    let DeValue::Table(extractors_table) = extractors.get_ref() else {
        collector.wrong_type(
            extractors.span(),
            "`capture.extractors`",
            "a table of input kind = stage name",
            extractors.get_ref(),
        );
        return Vec::new();
    };
    let mut bindings = Vec::new();
    for (input, stage) in extractors_table.iter() {
        if let Some(stage_name) =
            collector.string(stage, &format!("`capture.extractors.{}`", input.get_ref()))
        {
            bindings.push(CaptureBinding {
                input: input.get_ref().to_string(),
                stage: stage_name,
                position: stage.span().start,
            });
        }
    }
    bindings
}

/// `[manifest]`: the template rules (in the views' fixed order) and the route-form stages (in
/// file order, each with its position).
/// What the `[manifest]` table says.
#[derive(Default)]
struct ManifestTable {
    template_rules: Vec<String>,
    route_forms: Option<Vec<(String, usize)>>,
    sibling_transfer: bool,
}

fn parse_manifest(collector: &mut Collector<'_>, root: &DeTable<'_>) -> ManifestTable {
    let Some(manifest) = get(root, "manifest") else {
        return ManifestTable::default();
    };
    let DeValue::Table(table) = manifest.get_ref() else {
        collector.wrong_type(manifest.span(), "`manifest`", "a table", manifest.get_ref());
        return ManifestTable::default();
    };
    collector.unknown_keys(
        table,
        "[manifest]",
        &["template_rules", "route_forms", "sibling_transfer"],
    );
    let route_forms = parse_route_forms(collector, table);
    ManifestTable {
        template_rules: parse_template_rules(collector, table),
        route_forms,
        sibling_transfer: parse_sibling_transfer(collector, table),
    }
}

/// `[manifest] sibling_transfer`: a boolean, `false` when absent.
fn parse_sibling_transfer(collector: &mut Collector<'_>, table: &DeTable<'_>) -> bool {
    let Some(value) = get(table, "sibling_transfer") else {
        return false;
    };
    match value.get_ref() {
        DeValue::Boolean(flag) => *flag,
        other => {
            collector.wrong_type(
                value.span(),
                "`manifest.sibling_transfer`",
                "a boolean",
                other,
            );
            false
        }
    }
}

/// `[manifest] route_forms`: stage names, each once (whether each is a route-form stage is
/// checked when the pipeline is resolved); `None` when the key is absent.
fn parse_route_forms(
    collector: &mut Collector<'_>,
    table: &DeTable<'_>,
) -> Option<Vec<(String, usize)>> {
    let forms = get(table, "route_forms")?;
    Some(parse_stage_list(
        collector,
        forms,
        StageList {
            key: "`manifest.route_forms`",
            expected: "an array of route-form stage names",
            each: "each route form",
            repeated_code: "repeated_route_form",
            noun: "route form",
        },
    ))
}

/// What a list of stage names is called in its errors.
struct StageList {
    key: &'static str,
    expected: &'static str,
    each: &'static str,
    repeated_code: &'static str,
    noun: &'static str,
}

/// A list of stage names, each once, with each name's position (whether each names a stage of
/// the right kind is checked when the pipeline is resolved).
fn parse_stage_list(
    collector: &mut Collector<'_>,
    list: &Spanned<DeValue<'_>>,
    what: StageList,
) -> Vec<(String, usize)> {
    let DeValue::Array(items) = list.get_ref() else {
        collector.wrong_type(list.span(), what.key, what.expected, list.get_ref());
        return Vec::new();
    };
    let mut named: Vec<(String, usize)> = Vec::new();
    for item in items.iter() {
        let Some(name) = collector.string(item, what.each) else {
            continue;
        };
        if named.iter().any(|(known, _)| *known == name) {
            collector.push(
                item.span().start,
                what.repeated_code,
                format!("{} `{name}` is named twice", what.noun),
            );
        } else {
            named.push((name, item.span().start));
        }
    }
    named
}

fn parse_template_rules(collector: &mut Collector<'_>, table: &DeTable<'_>) -> Vec<String> {
    let Some(rules) = get(table, "template_rules") else {
        return Vec::new();
    };
    let DeValue::Array(items) = rules.get_ref() else {
        collector.wrong_type(
            rules.span(),
            "`manifest.template_rules`",
            "an array of rule names",
            rules.get_ref(),
        );
        return Vec::new();
    };
    let mut named: Vec<String> = Vec::new();
    for item in items.iter() {
        let Some(name) = collector.string(item, "each template rule") else {
            continue;
        };
        if !TEMPLATE_RULES.contains(&name.as_str()) {
            collector.push(
                item.span().start,
                "unknown_template_rule",
                format!(
                    "unknown template rule `{name}` (known: {})",
                    TEMPLATE_RULES.join(", ")
                ),
            );
        } else if named.contains(&name) {
            collector.push(
                item.span().start,
                "repeated_template_rule",
                format!("template rule `{name}` is named twice"),
            );
        } else {
            named.push(name);
        }
    }
    TEMPLATE_RULES
        .iter()
        .filter(|rule| named.iter().any(|name| name == *rule))
        .map(|rule| (*rule).to_owned())
        .collect()
}

/// The route forms the manifest projection runs when a pipeline names none.
pub const DEFAULT_ROUTE_FORMS: [&str; 4] =
    ["folder-tree", "fused-affix", "listed-id", "member-key"];

/// The query grammars the state engine runs when a pipeline names none.
pub const DEFAULT_QUERY_GRAMMARS: [&str; 7] = [
    "field-affixes",
    "filter-steps",
    "json-filter",
    "key-range",
    "kv-range",
    "mango-selector",
    "search-filter",
];

/// The `[state]` table: the query-grammar stages, in order, each with its position (`None` when
/// the table or its key is absent; an empty array runs none).
fn parse_state(collector: &mut Collector<'_>, root: &DeTable<'_>) -> Option<Vec<(String, usize)>> {
    let state = get(root, "state")?;
    let DeValue::Table(table) = state.get_ref() else {
        collector.wrong_type(state.span(), "`state`", "a table", state.get_ref());
        return Some(Vec::new());
    };
    collector.unknown_keys(table, "[state]", &["query_grammars"]);
    let grammars = get(table, "query_grammars")?;
    Some(parse_stage_list(
        collector,
        grammars,
        StageList {
            key: "`state.query_grammars`",
            expected: "an array of stage names",
            each: "each query grammar",
            repeated_code: "repeated_query_grammar",
            noun: "query grammar",
        },
    ))
}

fn parse_rules(collector: &mut Collector<'_>, root: &DeTable<'_>) -> Vec<RuleSpec> {
    let mut rules = Vec::new();
    for table in array_of_tables(collector, root, "rules") {
        collector.unknown_keys(table, "a [[rules]] entry", &["stage", "options"]);
        let mut options = BTreeMap::new();
        let mut option_positions = Vec::new();
        let mut value_positions = BTreeMap::new();
        if let Some(value) = get(table, "options") {
            match value.get_ref() {
                DeValue::Table(option_table) => {
                    record_positions(value, String::new(), &mut value_positions);
                    for (key, option) in option_table.iter() {
                        match to_json(option.get_ref()) {
                            Some(json) => {
                                options.insert(key.get_ref().to_string(), json);
                                option_positions.push((key.get_ref().to_string(), key.span().start));
                            }
                            None => collector.push(
                                option.span().start,
                                "invalid_value",
                                format!(
                                    "option `{}` cannot be passed to a plugin (datetimes and non-finite numbers are not allowed)",
                                    key.get_ref()
                                ),
                            ),
                        }
                    }
                }
                other => collector.wrong_type(value.span(), "`options`", "a table", other),
            }
        }
        match get(table, "stage") {
            Some(value) => {
                if let Some(stage) = collector.string(value, "`stage`") {
                    rules.push(RuleSpec {
                        stage,
                        options,
                        option_positions,
                        value_positions,
                        position: value.span().start,
                    });
                }
            }
            None => {
                let position = key_span(table, "options").unwrap_or(0);
                collector.push(
                    position,
                    "missing_key",
                    "a [[rules]] entry needs a `stage`".to_owned(),
                );
            }
        }
    }
    rules
}

fn parse_serve(collector: &mut Collector<'_>, root: &DeTable<'_>) -> ServeSpec {
    let Some(serve) = get(root, "serve") else {
        return ServeSpec::default();
    };
    let DeValue::Table(table) = serve.get_ref() else {
        collector.wrong_type(serve.span(), "`serve`", "a table", serve.get_ref());
        return ServeSpec::default();
    };
    collector.unknown_keys(table, "[serve]", &["host", "port", "withheld"]);
    let host = get(table, "host").and_then(|value| {
        let host = collector.string(value, "`serve.host`")?;
        if host.trim().is_empty() {
            collector.push(
                value.span().start,
                "invalid_value",
                "`serve.host` must not be blank".to_owned(),
            );
            return None;
        }
        Some(host)
    });
    let port = get(table, "port").and_then(|value| match value.get_ref() {
        DeValue::Integer(number) => match number.as_str().replace('_', "").parse::<u16>() {
            Ok(port) if number.radix() == 10 => Some(port),
            _ => {
                collector.push(
                    value.span().start,
                    "invalid_value",
                    format!("`serve.port` must be a port number from 0 to 65535, not {number}"),
                );
                None
            }
        },
        other => {
            collector.wrong_type(value.span(), "`serve.port`", "an integer", other);
            None
        }
    });
    let withheld = get(table, "withheld")
        .and_then(|value| {
            let name = collector.string(value, "`serve.withheld`")?;
            let mode = WithheldWrites::from_name(&name);
            if mode.is_none() {
                collector.push(
                    value.span().start,
                    "invalid_value",
                    format!(
                        "`serve.withheld` must be one of \"hide\", \"refuse\" or \"replay\", not {}",
                        serde_json::Value::from(name)
                    ),
                );
            }
            mode
        })
        .unwrap_or_default();
    ServeSpec {
        host,
        port,
        withheld,
    }
}

fn to_json(value: &DeValue<'_>) -> Option<serde_json::Value> {
    Some(match value {
        DeValue::String(text) => serde_json::Value::from(text.as_ref()),
        DeValue::Integer(number) => {
            let digits = number.as_str().replace('_', "");
            let parsed = i64::from_str_radix(
                digits
                    .trim_start_matches("0x")
                    .trim_start_matches("0o")
                    .trim_start_matches("0b"),
                number.radix(),
            )
            .ok()?;
            serde_json::Value::from(parsed)
        }
        DeValue::Float(number) => {
            let parsed: f64 = number.as_str().replace('_', "").parse().ok()?;
            serde_json::Value::from(serde_json::Number::from_f64(parsed)?)
        }
        DeValue::Boolean(flag) => serde_json::Value::from(*flag),
        DeValue::Datetime(_) => return None,
        DeValue::Array(items) => serde_json::Value::Array(
            items
                .iter()
                .map(|item| to_json(item.get_ref()))
                .collect::<Option<Vec<_>>>()?,
        ),
        DeValue::Table(table) => serde_json::Value::Object(
            table
                .iter()
                .map(|(key, item)| Some((key.get_ref().to_string(), to_json(item.get_ref())?)))
                .collect::<Option<serde_json::Map<_, _>>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_pipeline_parses() {
        let spec = parse(crate::DEFAULT_PIPELINE, "default", Path::new(".")).expect("parses");
        assert_eq!(spec.capture.len(), 2, "har and browser-scenario");
        assert_eq!(spec.template_rules.len(), 4);
        let forms: Vec<&str> = spec
            .route_forms
            .iter()
            .flatten()
            .map(|(name, _)| name.as_str())
            .collect();
        assert_eq!(
            forms,
            vec!["folder-tree", "fused-affix", "listed-id", "member-key"],
            "the built-in route forms run by default"
        );
        // Absent, the key names none (the resolved pipeline runs the default); `[]` is none.
        let absent = parse(
            "[manifest]\ntemplate_rules = []\n",
            "p.toml",
            Path::new("."),
        );
        assert_eq!(absent.expect("parses").route_forms, None);
        let empty = parse("[manifest]\nroute_forms = []\n", "p.toml", Path::new("."));
        assert_eq!(empty.expect("parses").route_forms, Some(Vec::new()));
    }

    #[test]
    fn route_forms_keep_their_order_and_refuse_repeats() {
        let text = "[manifest]\nroute_forms = [\"b\", \"a\", \"b\"]\n";
        let errors = parse(text, "p.toml", Path::new(".")).expect_err("refused");
        assert_eq!(errors.0.len(), 1);
        assert_eq!(errors.0[0].code, "repeated_route_form");
        assert_eq!((errors.0[0].line, errors.0[0].column), (Some(2), Some(26)));
        let spec = parse(
            "[manifest]\nroute_forms = [\"b\", \"a\"]\n",
            "p.toml",
            Path::new("."),
        )
        .expect("parses");
        let forms: Vec<&str> = spec
            .route_forms
            .iter()
            .flatten()
            .map(|(name, _)| name.as_str())
            .collect();
        assert_eq!(forms, vec!["b", "a"]);
        let errors = parse(
            "[manifest]\nroute_forms = \"a\"\n",
            "p.toml",
            Path::new("."),
        )
        .expect_err("refused");
        assert_eq!(errors.0[0].code, "wrong_type");
    }

    #[test]
    fn every_problem_is_reported_with_its_position() {
        let text = "colour = 1\n[serve]\nport = \"eighty\"\nhostname = \"x\"\n[manifest]\ntemplate_rules = [\"opaque-token\", \"nope\", \"opaque-token\"]\n";
        let errors = parse(text, "p.toml", Path::new(".")).expect_err("refused");
        let found: Vec<(String, Option<usize>, Option<usize>)> = errors
            .0
            .iter()
            .map(|d| (d.code.clone(), d.line, d.column))
            .collect();
        assert_eq!(
            found,
            vec![
                ("unknown_key".to_owned(), Some(1), Some(1)),
                ("wrong_type".to_owned(), Some(3), Some(8)),
                ("unknown_key".to_owned(), Some(4), Some(1)),
                ("unknown_template_rule".to_owned(), Some(6), Some(35)),
                ("repeated_template_rule".to_owned(), Some(6), Some(43)),
            ]
        );
    }

    #[test]
    fn serve_withheld_names_one_of_three_modes() {
        let spec =
            parse("[serve]\nwithheld = \"refuse\"\n", "p.toml", Path::new(".")).expect("parses");
        assert_eq!(spec.serve.withheld, WithheldWrites::Refuse);
        let spec =
            parse("[serve]\nwithheld = \"replay\"\n", "p.toml", Path::new(".")).expect("parses");
        assert_eq!(spec.serve.withheld.name(), "replay");
        let spec = parse("[serve]\nport = 1\n", "p.toml", Path::new(".")).expect("parses");
        assert_eq!(spec.serve.withheld, WithheldWrites::Hide);
        let errors =
            parse("[serve]\nwithheld = \"show\"\n", "p.toml", Path::new(".")).expect_err("refused");
        assert_eq!(errors.0.len(), 1);
        assert_eq!(errors.0[0].code, "invalid_value");
        assert_eq!((errors.0[0].line, errors.0[0].column), (Some(2), Some(12)));
        assert!(errors.0[0].message.contains("\"show\""), "{}", errors.0[0]);
        let errors =
            parse("[serve]\nwithheld = true\n", "p.toml", Path::new(".")).expect_err("refused");
        assert_eq!(errors.0[0].code, "wrong_type");
    }

    #[test]
    fn sibling_transfer_is_an_opt_in_boolean() {
        let on = parse(
            "[manifest]\nsibling_transfer = true\n",
            "p.toml",
            Path::new("."),
        )
        .unwrap();
        assert!(on.sibling_transfer);
        let off = parse("[manifest]\nroute_forms = []\n", "p.toml", Path::new(".")).unwrap();
        assert!(!off.sibling_transfer, "absent is off");
        let errors = parse(
            "[manifest]\nsibling_transfer = \"yes\"\n",
            "p.toml",
            Path::new("."),
        )
        .unwrap_err();
        assert!(errors.to_string().contains("sibling_transfer"), "{errors}");
    }

    #[test]
    fn template_rules_come_out_in_the_fixed_order() {
        let text = "[manifest]\ntemplate_rules = [\"prefix-variance\", \"after-uid-literal\"]\n";
        let spec = parse(text, "p.toml", Path::new(".")).expect("parses");
        assert_eq!(
            spec.template_rules,
            vec!["after-uid-literal", "prefix-variance"]
        );
    }

    #[test]
    fn relative_library_paths_resolve_against_the_pipeline_folder() {
        let text = "[[plugins]]\npath = \"lib/x.so\"\n";
        let spec = parse(text, "p.toml", Path::new("/etc/rea")).expect("parses");
        assert_eq!(spec.libraries[0].path, Path::new("/etc/rea/lib/x.so"));
    }

    #[test]
    fn syntax_errors_have_positions() {
        let errors = parse("[serve\nport = 1\n", "p.toml", Path::new(".")).expect_err("refused");
        assert_eq!(errors.0[0].code, "invalid_toml");
        assert_eq!(errors.0[0].line, Some(1));
    }
}

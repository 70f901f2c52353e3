//! Helpers of the `state_*` tests: the shared captures inspected in-process, the state served from
//! them, calls built from recorded requests, and answers compared with recordings.

pub mod agreement;
pub mod plane_calls;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rea::commands::inspect_capture::{InspectRequest, inspect_with_builtins};
use rea_backends::Serving;
use rea_backends::backend::StateBackend;
use rea_backends::fetch::FetchOptions;
use rea_backends::plane::StatePlane;
use rea_evidence::Evidence;
use rea_evidence::capture::capture_records;
use rea_json::Json;
use rea_manifest::catalog::ArgumentTarget;
use rea_manifest::evidence::project_manifest_evidence;
use rea_manifest::{Environment, Manifest, TemplateRules};
use rea_plugin_api::contracts::capture::{CaptureRecord, CompactString};
use rea_serve::ToolBackend;
use rea_state::StateView;
use rea_state::model::{ListView, QueryModel, ViewDetail};
use rea_state::rules::RuleSet;
use serde_json::{Map, Value};

/// The rules published environments use.
pub const RULES: [&str; 4] = [
    "after-uid-literal",
    "opaque-token",
    "sibling-variance",
    "prefix-variance",
];

/// The application captures with a `build.har`.
pub const APPS: [&str; 4] = ["json-server", "kinto", "mlflow", "tiddlywiki"];

/// What replaces the captures folder's absolute path in Evidence, so ids do not depend on where
/// the checkout lives.
pub const CAPTURES_PLACEHOLDER: &str = "<captures>";

/// `shared/captures`, canonical.
pub fn captures_dir() -> PathBuf {
    let dir = rea_tests::shared_dir().join("captures");
    std::fs::canonicalize(&dir).unwrap_or_else(|error| {
        panic!(
            "the shared captures are missing at {}: {error}",
            dir.display()
        )
    })
}

fn replace_in_strings(value: &mut Json, from: &str, to: &str) {
    match value {
        Json::String(text) if text.contains(from) => *text = text.replace(from, to).into(),
        Json::Array(items) => items
            .iter_mut()
            .for_each(|item| replace_in_strings(item, from, to)),
        Json::Object(object) => object
            .iter_mut()
            .for_each(|(_, item)| replace_in_strings(item, from, to)),
        _ => {}
    }
}

/// A capture inspected in-process, with the captures folder replaced by a placeholder and
/// re-sealed: its id is the same wherever the checkout lives.
pub fn capture(relative: &str) -> Evidence {
    let root = captures_dir();
    let path = root.join(relative);
    let evidence = inspect_with_builtins(&InspectRequest {
        capture: &path,
        input_kind: "har",
        selection: None,
        sensitive_values: &[],
    })
    .unwrap_or_else(|refusal| panic!("{relative}: {refusal:?}"));
    let mut body = Json::Object(evidence.body().clone());
    replace_in_strings(&mut body, &root.display().to_string(), CAPTURES_PLACEHOLDER);
    let Json::Object(body) = body else {
        unreachable!("an object stays an object")
    };
    Evidence::seal(evidence.operation(), body)
}

/// The default template rules, with the default pipeline's route forms.
pub fn rules() -> TemplateRules {
    state_rules().templating(&TemplateRules::parse(&RULES).expect("rules"))
}

/// The rule stages of the embedded default pipeline, from the built-in plugins.
pub fn state_rules() -> Arc<RuleSet> {
    pipeline_rules(None)
}

/// The rule stages of a pipeline file (`None`: the embedded default), its libraries loaded.
pub fn pipeline_rules(path: Option<&Path>) -> Arc<RuleSet> {
    let mut registry = rea::builtin_registry().expect("registry");
    let (_, rules) = rea_state::rules::load_pipeline(path, &mut registry).expect("pipeline");
    Arc::new(rules)
}

/// Everything a served state test needs about one capture.
pub struct Served {
    pub manifest: Manifest,
    pub records: Vec<CaptureRecord>,
    pub backend: Arc<StateBackend>,
    pub plane: Arc<StatePlane>,
    pub replay: Environment,
}

impl Served {
    pub fn state(&self) -> &StateView {
        self.backend.service().derived()
    }

    /// Calls a tool and parses its answer; the flag is `isError`.
    pub fn call(&self, tool: &str, arguments: Map<String, Value>) -> (Value, bool) {
        let answer = futures_util::FutureExt::now_or_never(self.backend.call_tool(tool, arguments))
            .expect("state answers are immediate");
        (
            serde_json::from_str(&answer.text).expect("answers are JSON"),
            answer.is_error,
        )
    }
}

/// Serves a capture from the state (panics when the state is unavailable).
pub fn serve(relative: &str) -> Served {
    serve_with(relative, FetchOptions::default())
}

/// Serves a capture from the state with download options.
pub fn serve_with(relative: &str, options: FetchOptions) -> Served {
    serve_with_rules(relative, state_rules(), options)
}

/// Serves a capture from the state with rule stages and download options.
pub fn serve_with_rules(
    relative: &str,
    state_rules: Arc<RuleSet>,
    options: FetchOptions,
) -> Served {
    serve_evidence(capture(relative), state_rules, options)
}

/// A capture file anywhere, inspected in-process (its folder replaced by a placeholder).
pub fn capture_file(path: &Path) -> Evidence {
    let evidence = inspect_with_builtins(&InspectRequest {
        capture: path,
        input_kind: "har",
        selection: None,
        sensitive_values: &[],
    })
    .unwrap_or_else(|refusal| panic!("{}: {refusal:?}", path.display()));
    let mut body = Json::Object(evidence.body().clone());
    if let Some(folder) = path.parent() {
        replace_in_strings(
            &mut body,
            &folder.display().to_string(),
            CAPTURES_PLACEHOLDER,
        );
    }
    let Json::Object(body) = body else {
        unreachable!("an object stays an object")
    };
    Evidence::seal(evidence.operation(), body)
}

/// A corpus app's folder: `tests/corpus/apps/APP` or the shared captures'.
pub fn corpus_dir(app: &str) -> PathBuf {
    rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots())
        .into_iter()
        .find(|found| found.name == app)
        .unwrap_or_else(|| panic!("the corpus holds {app}"))
        .dir
}

/// Serves a corpus app's build capture from the state with the default rule stages.
pub fn serve_corpus_app(app: &str) -> Served {
    let build = corpus_dir(app).join("build.har");
    serve_evidence(capture_file(&build), state_rules(), FetchOptions::default())
}

/// Serves a corpus app's build capture from the state with the opt-in sibling transfer on or off.
pub fn serve_corpus_app_transfer(app: &str, transfer: bool) -> Served {
    let build = corpus_dir(app).join("build.har");
    let rules = Arc::new((*state_rules()).clone().with_sibling_transfer(transfer));
    serve_evidence(capture_file(&build), rules, FetchOptions::default())
}

/// The list view a served state derived for a tool.
pub fn list_view<'a>(served: &'a Served, tool: &str) -> &'a ListView {
    served
        .state()
        .views
        .iter()
        .find_map(|view| match &view.detail {
            ViewDetail::List(list) if view.tool == tool => Some(list),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{tool} is a list view"))
}

/// The query model a served state learned for a list tool.
pub fn query_model(served: &Served, tool: &str) -> QueryModel {
    list_view(served, tool)
        .query
        .clone()
        .unwrap_or_else(|| panic!("{tool} has a query model"))
}

/// Serves capture Evidence from the state with a pipeline's stages and download options.
pub fn serve_evidence(
    capture: Evidence,
    state_rules: Arc<RuleSet>,
    options: FetchOptions,
) -> Served {
    let relative = capture.id().to_owned();
    // The manifest projected with the pipeline's own route forms, as the state derives it.
    let templating = state_rules.templating(&TemplateRules::parse(&RULES).expect("rules"));
    let (manifest, _) = project_manifest_evidence(&capture, &templating).expect("manifest");
    // The records as the manifest reads them (ids over two segments joined, `rea_manifest::joined`).
    let mut records = capture_records(&capture).expect("records");
    let _ = rea_manifest::joined::rewrite_records(&mut records, &manifest.joined_segments);
    let environment =
        Environment::new(&manifest, capture.id(), records.clone()).expect("environment");
    let replay = Environment::new(&manifest, capture.id(), records.clone()).expect("environment");
    match rea_backends::prepare_with(
        environment,
        &manifest,
        &capture,
        &manifest.name,
        state_rules,
        options,
    ) {
        Serving::State { backend, plane, .. } => Served {
            manifest,
            records,
            backend,
            plane,
            replay,
        },
        Serving::Replay { refusal, .. } => {
            panic!("{relative}: the state is unavailable: {refusal:?}")
        }
    }
}

/// The arguments that name a recorded request of a tool: its path segments at the parameters'
/// indexes, and its query values (an array for a repeated name).
pub fn arguments_of(
    replay: &Environment,
    tool: &str,
    record: &CaptureRecord,
) -> Map<String, Value> {
    let definition = replay.tool(tool).expect("tool");
    let path = record.path.clone().unwrap_or_default();
    let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(&path).split('/').collect();
    let pairs: Vec<(String, String)> = record
        .query
        .as_ref()
        .map(|query| query.pairs.iter().flatten().cloned().collect())
        .unwrap_or_default();
    let segments: Vec<CompactString> = segments.into_iter().map(Into::into).collect();
    rea_state::writes::arguments_for(definition, &segments, &pairs)
}

/// A recorded response as replay answers it: `(status, body)`.
pub fn recorded_answer(record: &CaptureRecord) -> (Option<u16>, Value) {
    let interpreted =
        rea_manifest::body::interpret(&record.response.body, record.response.media_type.as_deref());
    (
        (record.response.status != 0).then_some(record.response.status),
        interpreted.body.to_value(),
    )
}

/// Where a relative capture path is.
pub fn capture_path(relative: &str) -> PathBuf {
    captures_dir().join(relative)
}

/// The golden folder.
pub fn golden_dir() -> PathBuf {
    rea_tests::workspace_root()
        .join("tests")
        .join("golden")
        .join("state")
}

/// Compares bytes with a golden file, or writes it with `REA_BLESS=1` (see [`rea_tests::golden`]).
pub fn check_golden(path: &Path, actual: &[u8]) {
    if let Err(problem) = rea_tests::golden::check(path, actual) {
        panic!("{problem}");
    }
}

/// Calls a tool with string arguments (`[("skip", "6")]`).
pub fn call_with_strings(served: &Served, tool: &str, arguments: &[(&str, &str)]) -> (Value, bool) {
    served.call(tool, string_arguments(arguments))
}

/// Tool arguments holding these strings (`[("id", "3")]`).
pub fn string_arguments(pairs: &[(&str, &str)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), Value::String((*value).to_owned())))
        .collect()
}

/// A tool's arguments naming its path segments and query pairs as a recorded request would,
/// and the body.
pub fn request_arguments(
    served: &Served,
    tool: &str,
    (path, query): (&[&str], &[(&str, &str)]),
    body: Option<Value>,
) -> Map<String, Value> {
    let definition = served.replay.tool(tool).expect("tool");
    let segments: Vec<CompactString> = path.iter().map(|segment| (*segment).into()).collect();
    let pairs: Vec<(String, String)> = query
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    let mut arguments = rea_state::writes::arguments_for(definition, &segments, &pairs);
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    arguments
}

/// The served state's write plan of a tool (panics when it has none).
pub fn write_plan<'a>(served: &'a Served, tool: &str) -> &'a rea_state::writes::model::WritePlan {
    served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.tool == tool)
        .unwrap_or_else(|| panic!("a plan for {tool}"))
}

/// The one probe record whose request line (as [`request_line`] spells it) is `line`.
pub fn probe_with_line<'a>(probes: &'a [CaptureRecord], line: &str) -> &'a CaptureRecord {
    probes
        .iter()
        .find(|record| request_line(record, "") == line)
        .unwrap_or_else(|| panic!("the probes hold {line}"))
}

/// A record's request line (`METHOD /path?query` as recorded), `missing` standing for an absent
/// method or path.
pub fn request_line(record: &CaptureRecord, missing: &str) -> String {
    format!(
        "{} {}{}",
        record.method.as_deref().unwrap_or(missing),
        record.path.as_deref().unwrap_or(missing),
        record
            .query
            .as_ref()
            .and_then(|query| query.raw.as_ref())
            .map(|raw| format!("?{raw}"))
            .unwrap_or_default()
    )
}

/// A structured `not_modelled` refusal: no recording, no state answer.
pub fn assert_not_modelled(answer: &Value, is_error: bool) {
    assert!(is_error, "refused: {answer}");
    assert_eq!(
        answer
            .pointer("/error/code")
            .or_else(|| answer.get("code"))
            .and_then(Value::as_str),
        Some("not_modelled"),
        "{answer}"
    );
    assert!(answer.get("body").is_none(), "{answer}");
}

/// The tool's arguments naming `values` for its path parameters, in order, and the body.
pub fn path_arguments(
    served: &Served,
    tool: &str,
    values: &[&str],
    body: Option<Value>,
) -> Map<String, Value> {
    let definition = manifest_tool(served, tool);
    assert_eq!(definition.path_parameters.len(), values.len(), "{tool}");
    let mut arguments: Map<String, Value> = definition
        .path_parameters
        .iter()
        .zip(values)
        .map(|(parameter, value)| (parameter.name.clone(), Value::from(*value)))
        .collect();
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    arguments
}

/// The arguments of a tool with one path parameter naming `id`.
pub fn id_arguments(served: &Served, tool: &str, id: &str) -> Map<String, Value> {
    let definition = manifest_tool(served, tool);
    assert_eq!(definition.path_parameters.len(), 1, "{tool}");
    let mut arguments = Map::new();
    arguments.insert(
        definition.path_parameters[0].name.clone(),
        Value::String(id.to_owned()),
    );
    arguments
}

/// A tool's arguments: its one path parameter naming `id`, and `body` as its request body.
pub fn id_and_body(served: &Served, tool: &str, id: &str, body: Value) -> Map<String, Value> {
    let mut arguments = id_arguments(served, tool, id);
    arguments.extend(with_body(served, tool, body));
    arguments
}

/// The body a tool with one path parameter answers for `id`, its arguments admitted and the
/// answer asserted to be no error (see [`call_admitted`]).
pub fn read_by_id(served: &Served, tool: &str, id: &str) -> Value {
    call_admitted(served, tool, id_arguments(served, tool, id))["body"].clone()
}

/// A served manifest's tool by name.
pub fn manifest_tool<'a>(served: &'a Served, tool: &str) -> &'a rea_manifest::ManifestTool {
    served
        .manifest
        .tools
        .iter()
        .find(|definition| definition.name == tool)
        .unwrap_or_else(|| panic!("{tool} is a tool"))
}

/// The detail of a served state's view of a tool.
pub fn view_detail<'a>(served: &'a Served, tool: &str) -> &'a rea_state::model::ViewDetail {
    &served
        .state()
        .views
        .iter()
        .find(|view| view.tool == tool)
        .unwrap_or_else(|| panic!("{tool} has a view"))
        .detail
}

/// The write plans (as the state evidence spells them) the state learns from a corpus app's
/// `build.har` (`tests/corpus/apps/<app>/`).
pub fn corpus_write_plans(app: &str) -> Vec<Value> {
    let path = rea_tests::workspace_root().join(format!("tests/corpus/apps/{app}/build.har"));
    let capture = capture_file(&path);
    let projected =
        rea_state::project_state_evidence(&capture, &rules(), &state_rules()).expect("state");
    let state: Value =
        serde_json::from_slice(&projected.evidence.to_canonical_vec()).expect("state JSON");
    state["write_plans"]
        .as_array()
        .expect("write plans")
        .clone()
}

/// The write plan of one tool among a corpus application's plans (see [`corpus_write_plans`]).
pub fn plan_of<'a>(plans: &'a [Value], tool: &str) -> &'a Value {
    plans
        .iter()
        .find(|plan| plan["tool"] == tool)
        .unwrap_or_else(|| panic!("no plan for {tool}: {plans:#?}"))
}

/// A tool's arguments: `body` as its request body.
pub fn with_body(served: &Served, tool: &str, body: Value) -> Map<String, Value> {
    let definition = served.replay.tool(tool).expect("the tool");
    let argument = definition
        .input_schema
        .arguments
        .iter()
        .find(|argument| argument.target == ArgumentTarget::Body)
        .expect("a body argument");
    let mut arguments = Map::new();
    arguments.insert(argument.name.clone(), body);
    arguments
}

/// The learned rule of one stage in a write plan's rules (the plan's own `rules`, or its
/// `upsert`'s: pass that object), as the state evidence spells it.
pub fn rule_of<'a>(plan: &'a Value, stage: &str) -> &'a Value {
    plan["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|rule| rule["stage"] == stage)
        .unwrap_or_else(|| panic!("no {stage} rule: {plan:#}"))
}

/// The `id`s of the list an answer nests at `/body/data/collection` (Roundup's list envelope).
pub fn collection_ids(answer: &Value) -> Vec<String> {
    answer["body"]["data"]["collection"]
        .as_array()
        .unwrap_or_else(|| panic!("a nested list: {answer:#}"))
        .iter()
        .map(|member| member["id"].as_str().expect("an id").to_owned())
        .collect()
}

/// The input schema the served state catalog advertises for a tool, as MCP `tools/list` shows it.
pub fn input_schema(served: &Served, tool: &str) -> Map<String, Value> {
    rea_serve::ToolBackend::tools(served.backend.as_ref())
        .iter()
        .find(|descriptor| descriptor.name == tool)
        .expect("the tool is served")
        .input_schema
        .clone()
}

/// A tool's answer to arguments its advertised input schema admits (checked first), asserted to
/// be no error.
pub fn call_admitted(served: &Served, tool: &str, arguments: Map<String, Value>) -> Value {
    let schema = input_schema(served, tool);
    assert!(
        rea_serve::arguments::check(&schema, &arguments).is_ok(),
        "{tool} admits {arguments:?}: {schema:#?}"
    );
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{tool}: {answer:#}");
    answer
}

/// The argument name of a tool's first path parameter.
pub fn path_parameter(served: &Served, tool: &str) -> String {
    served
        .manifest
        .tools
        .iter()
        .find(|candidate| candidate.name == tool)
        .and_then(|definition| definition.path_parameters.first())
        .map(|parameter| parameter.name.clone())
        .expect("a path parameter")
}

/// The status and JSON body the live application answered a corpus app's probe entry with.
pub fn live_answer(app: &str, probe: &str, entry: usize) -> (u64, Value) {
    let path = corpus_dir(app).join(format!("{probe}.har"));
    let har: Value = serde_json::from_slice(&std::fs::read(&path).expect("the probe HAR"))
        .expect("the probe HAR is JSON");
    let response = &har["log"]["entries"][entry]["response"];
    let text = response["content"]["text"].as_str().expect("a kept body");
    let body = serde_json::from_str(text).expect("a JSON body");
    (response["status"].as_u64().expect("a status"), body)
}

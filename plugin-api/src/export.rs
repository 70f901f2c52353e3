//! Helpers for plugin authors: write a plugin as plain Rust, export it through the ABI.
//!
//! A plugin implements [`CaptureExtractor`], [`StateRule`], [`AgentTool`], [`RouteForm`] or
//! [`QueryGrammar`] (typed,
//! no JSON by hand), collects its stages in a [`Plugin`], and declares its root module with
//! [`plugin_root_module!`]. The adapters
//! here turn each call into the ABI's JSON-text form and catch every panic on the plugin side, so a
//! panicking plugin returns a [`PluginError`] with code [`PluginError::PANICKED`] instead of aborting
//! the host (abi_stable's own `extern "C"` shims abort on unwinding).
//!
//! ```ignore
//! rea_plugin_api::plugin_root_module! {
//!     pub fn root_module() = Plugin::new("my-plugin", env!("CARGO_PKG_VERSION"))
//!         .rule(StageInfo::new("revision", "Explains revision counters"), MyRule);
//! }
//! rea_plugin_api::submit_builtin!(root_module); // only for plugins linked into the host
//! ```
//!
//! A plugin library then exports the same module with [`export_plugin!`] (in the plugin crate
//! itself for a third-party plugin, in a tiny cdylib wrapper crate for a built-in one, because the
//! symbol it defines has one fixed name per binary):
//!
//! ```ignore
//! rea_plugin_api::export_plugin!(my_plugin::root_module);
//! ```

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RResult, RSlice, RStr, RString, RVec};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::abi::{
    CaptureStage, CaptureStage_TO, CaptureStageBox, HeldIndexBox, PluginDescriptor, PluginError,
    QueryGrammarStage, QueryGrammarStage_TO, QueryGrammarStageBox, ReadProgressMut, RouteFormStage,
    RouteFormStage_TO, RouteFormStageBox, RuleStage, RuleStage_TO, RuleStageBox, StageDescriptor,
    StageKind, ToolStage, ToolStage_TO, ToolStageBox,
};
use crate::contracts::capture::{ExtractRequest, Extraction};
use crate::contracts::query::{
    QueryBodyRequest, QueryExpressionOutcome, QueryExpressionRequest, QueryGrammarOutcome,
    QueryGrammarRequest,
};
use crate::contracts::route::{
    ActionRouteOutcome, ActionRouteRequest, RouteFormOutcome, RouteFormRequest,
};
use crate::contracts::rule::{
    ApplyOutcome, ApplyRequest, Held, HeldIndexKind, HeldIndexes, LearnOutcome, LearnRequest,
    LearnScope, OptionProblem, OptionsCheck, OptionsCheckRequest, RawOptions,
};
use crate::contracts::tool::{ToolCallOutcome, ToolCallRequest, ToolDescription};
use crate::contracts::{SCHEMA_VERSION, SchemaVersioned};
use crate::options::{check_options, invalid_option, option_names, read_options};

/// A capture extractor written in plain Rust.
pub trait CaptureExtractor: Send + Sync + 'static {
    /// Extracts the records of one capture file.
    fn extract(&self, request: &ExtractRequest, bytes: &[u8]) -> Result<Extraction, PluginError>;

    /// The extraction as the contract's JSON text: what crosses the ABI. The default encodes
    /// [`Self::extract`]'s answer; an extractor may write the text itself (for instance encoding
    /// records while it still parses) as long as it is exactly that JSON.
    fn extract_json(&self, request: &ExtractRequest, bytes: &[u8]) -> Result<String, PluginError> {
        encode_payload(&self.extract(request, bytes)?).map(RString::into_string)
    }

    /// [`Self::extract_json`], calling `read` with how many bytes of the input it has read so
    /// far (never decreasing), so the host can show a byte-based percentage. The default reads
    /// without reporting; an extractor that reads its input in order (records one after another)
    /// reports after each record.
    fn extract_json_reporting(
        &self,
        request: &ExtractRequest,
        bytes: &[u8],
        read: &mut dyn FnMut(u64),
    ) -> Result<String, PluginError> {
        let _ = read;
        self.extract_json(request, bytes)
    }
}

/// The learn scope of a stage that declares none: every tool (a
/// [`crate::contracts::rule::LearnScope`] as JSON text, what the ABI's `learn_scope` answers by
/// default).
pub const EVERY_TOOL: &str = r#"{"explains_only":false,"schema_version":1}"#;

/// A state rule written in plain Rust, over its own options and learned-rule types.
///
/// The adapters read the pipeline's options into [`StateRule::Options`] (a value that does not
/// fit is reported by `rea pipeline check` with its line and column, before anything learns) and
/// the learned rule `apply` gets back into [`StateRule::Rule`]; neither is JSON the rule writes.
pub trait StateRule: Send + Sync + 'static {
    /// The options a pipeline may give (`[[rules]] options = {…}`): a serde struct whose field
    /// names are the option names, or [`NoOptions`](crate::contracts::rule::NoOptions).
    type Options: DeserializeOwned;
    /// The learned rule: what `learn` answers and `apply` receives back (opaque to the host).
    type Rule: Serialize + DeserializeOwned;
    /// Learns the rule from observations, or says it has no explanation.
    fn learn(
        &self,
        request: &LearnRequest<Self::Options>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError>;
    /// Applies a learned rule to a served call.
    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError>;

    /// What `apply` asks about the written collection, for every top-level field the learned
    /// rule explains (the host keeps those indexes and answers through
    /// [`crate::contracts::rule::ServedCall::held`]); none by default.
    fn held_indexes(&self) -> Vec<HeldIndexKind> {
        Vec::new()
    }

    /// When `learn` can explain anything: the effects it learns for, and whether its rule joins a
    /// plan only by explaining (the host then asks it only for tools within that scope); every
    /// tool by default. A stage whose `learn` answers no explanation for other effects, or whose
    /// rule carries no placement or dependents, says so here and is spared decoding requests it
    /// cannot answer.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::default()
    }
}

/// An MCP tool written in plain Rust, contributed to `rea mcp`'s catalog.
pub trait AgentTool: Send + Sync + 'static {
    /// The tool's family, title, description, input schema and annotations.
    fn describe(&self) -> ToolDescription;
    /// Answers one call whose arguments already passed the input schema.
    fn call(
        &self,
        arguments: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, PluginError>;
}

/// A route form written in plain Rust: which literal segments of recorded paths are parameters,
/// and which part of a segment (see [`crate::contracts::route`]).
pub trait RouteForm: Send + Sync + 'static {
    /// Proposes forms for segments of the request's routes that are still literal.
    fn apply(&self, request: &RouteFormRequest) -> Result<RouteFormOutcome, PluginError>;

    /// Says which write routes act on the entity a parameter segment names (by default none).
    fn actions(&self, request: &ActionRouteRequest) -> Result<ActionRouteOutcome, PluginError> {
        let _ = request;
        Ok(ActionRouteOutcome::default())
    }
}

/// A query grammar written in plain Rust: which query parameters a state's lists accept beyond
/// those their recordings named (see [`crate::contracts::query`]).
pub trait QueryGrammar: Send + Sync + 'static {
    /// Proposes the parameters each list of the request accepts, with their roles.
    fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, PluginError>;

    /// Splits a parameter whose value is an expression of the grammar's language into terms
    /// (by default none is: `terms` is `None`).
    fn split(
        &self,
        request: &QueryExpressionRequest,
    ) -> Result<QueryExpressionOutcome, PluginError> {
        let _ = request;
        Ok(QueryExpressionOutcome::default())
    }

    /// Splits the request body of a read whose query is its body into terms (by default no body
    /// is read: `terms` is `None`).
    fn split_body(
        &self,
        request: &QueryBodyRequest,
    ) -> Result<QueryExpressionOutcome, PluginError> {
        let _ = request;
        Ok(QueryExpressionOutcome::default())
    }
}

/// The descriptive part of a stage: its name, summary, input kinds and option names (for a rule,
/// read off its `Options` type when not declared).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageInfo {
    /// Unique stage name (kebab-case).
    pub name: String,
    /// One sentence.
    pub summary: String,
    /// Input kinds (capture stages).
    pub inputs: Vec<String>,
    /// Option names the stage accepts.
    pub options: Vec<String>,
}

impl StageInfo {
    /// A stage with a name and summary, no inputs and no options.
    pub fn new(name: impl Into<String>, summary: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            summary: summary.into(),
            inputs: Vec::new(),
            options: Vec::new(),
        }
    }

    /// Declares the input kinds a capture stage reads.
    pub fn inputs<I, S>(mut self, inputs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.inputs = inputs.into_iter().map(Into::into).collect();
        self
    }

    /// Declares the option names a stage accepts.
    pub fn options<I, S>(mut self, options: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options = options.into_iter().map(Into::into).collect();
        self
    }

    fn descriptor(&self, kind: StageKind) -> StageDescriptor {
        StageDescriptor {
            name: self.name.as_str().into(),
            kind: kind.as_str().into(),
            summary: self.summary.as_str().into(),
            inputs: self
                .inputs
                .iter()
                .map(|s| RString::from(s.as_str()))
                .collect(),
            options: self
                .options
                .iter()
                .map(|s| RString::from(s.as_str()))
                .collect(),
        }
    }
}

/// A plugin: its name, version and stages, written in plain Rust.
pub struct Plugin {
    name: String,
    version: String,
    api_version: String,
    captures: Vec<(StageInfo, Arc<dyn CaptureExtractor>)>,
    rules: Vec<(StageInfo, Arc<dyn RuleCalls>)>,
    tools: Vec<(StageInfo, Arc<dyn AgentTool>)>,
    route_forms: Vec<(StageInfo, Arc<dyn RouteForm>)>,
    query_grammars: Vec<(StageInfo, Arc<dyn QueryGrammar>)>,
}

impl Plugin {
    /// A plugin with no stages yet, built against this crate's [`crate::API_VERSION`].
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            api_version: crate::API_VERSION.to_owned(),
            captures: Vec::new(),
            rules: Vec::new(),
            tools: Vec::new(),
            route_forms: Vec::new(),
            query_grammars: Vec::new(),
        }
    }

    /// Adds a capture stage.
    pub fn capture(mut self, info: StageInfo, stage: impl CaptureExtractor) -> Self {
        self.captures.push((info, Arc::new(stage)));
        self
    }

    /// Adds a rule stage. Its option names are those the info declares or, when it declares
    /// none, the fields of the rule's `Options` struct.
    pub fn rule<R: StateRule>(mut self, mut info: StageInfo, stage: R) -> Self {
        if info.options.is_empty()
            && let Some(names) = option_names::<R::Options>()
        {
            info.options = names.iter().map(|name| (*name).to_owned()).collect();
        }
        self.rules.push((info, Arc::new(TypedRule(stage))));
        self
    }

    /// Adds a tool stage (its name is the MCP tool name).
    pub fn tool(mut self, info: StageInfo, tool: impl AgentTool) -> Self {
        self.tools.push((info, Arc::new(tool)));
        self
    }

    /// Adds a route form stage.
    pub fn route_form(mut self, info: StageInfo, form: impl RouteForm) -> Self {
        self.route_forms.push((info, Arc::new(form)));
        self
    }

    /// Adds a query grammar stage.
    pub fn query_grammar(mut self, info: StageInfo, grammar: impl QueryGrammar) -> Self {
        self.query_grammars.push((info, Arc::new(grammar)));
        self
    }

    /// Overrides the declared API version. Only tests that exercise the host's version check need
    /// this; real plugins declare the version they were compiled against.
    #[doc(hidden)]
    pub fn declare_api_version(mut self, api_version: impl Into<String>) -> Self {
        self.api_version = api_version.into();
        self
    }

    /// The ABI descriptor of this plugin.
    pub fn descriptor(&self) -> PluginDescriptor {
        let mut stages: RVec<StageDescriptor> = RVec::new();
        for (info, _) in &self.captures {
            stages.push(info.descriptor(StageKind::Capture));
        }
        for (info, _) in &self.rules {
            stages.push(info.descriptor(StageKind::Rule));
        }
        for (info, _) in &self.tools {
            stages.push(info.descriptor(StageKind::Tool));
        }
        for (info, _) in &self.route_forms {
            stages.push(info.descriptor(StageKind::RouteForm));
        }
        for (info, _) in &self.query_grammars {
            stages.push(info.descriptor(StageKind::QueryGrammar));
        }
        PluginDescriptor {
            name: self.name.as_str().into(),
            version: self.version.as_str().into(),
            api_version: self.api_version.as_str().into(),
            stages,
        }
    }

    /// Constructs the named capture stage as an ABI trait object.
    pub fn capture_stage(&self, name: &str) -> Result<CaptureStageBox, PluginError> {
        let (_, stage) = self
            .captures
            .iter()
            .find(|(info, _)| info.name == name)
            .ok_or_else(|| unknown_stage(&self.name, name, StageKind::Capture))?;
        Ok(CaptureStage_TO::from_value(
            CaptureAdapter(Arc::clone(stage)),
            TD_Opaque,
        ))
    }

    /// Constructs the named rule stage as an ABI trait object.
    pub fn rule_stage(&self, name: &str) -> Result<RuleStageBox, PluginError> {
        let (_, stage) = self
            .rules
            .iter()
            .find(|(info, _)| info.name == name)
            .ok_or_else(|| unknown_stage(&self.name, name, StageKind::Rule))?;
        Ok(RuleStage_TO::from_value(
            RuleAdapter(Arc::clone(stage)),
            TD_Opaque,
        ))
    }

    /// Checks option values for the named rule stage: `request` is an
    /// [`OptionsCheckRequest`] as JSON text; the answer an [`OptionsCheck`] as JSON text.
    pub fn check_rule_options(&self, name: &str, request: &str) -> Result<RString, PluginError> {
        let (_, stage) = self
            .rules
            .iter()
            .find(|(info, _)| info.name == name)
            .ok_or_else(|| unknown_stage(&self.name, name, StageKind::Rule))?;
        let request: OptionsCheckRequest = decode_payload(request)?;
        encode_payload(&OptionsCheck {
            problems: stage.check_options(&request.options),
            schema_version: SCHEMA_VERSION,
        })
    }

    /// Constructs the named tool stage as an ABI trait object.
    pub fn tool_stage(&self, name: &str) -> Result<ToolStageBox, PluginError> {
        let (_, tool) = self
            .tools
            .iter()
            .find(|(info, _)| info.name == name)
            .ok_or_else(|| unknown_stage(&self.name, name, StageKind::Tool))?;
        Ok(ToolStage_TO::from_value(
            ToolAdapter(Arc::clone(tool)),
            TD_Opaque,
        ))
    }

    /// Constructs the named route form stage as an ABI trait object.
    pub fn route_form_stage(&self, name: &str) -> Result<RouteFormStageBox, PluginError> {
        let (_, form) = self
            .route_forms
            .iter()
            .find(|(info, _)| info.name == name)
            .ok_or_else(|| unknown_stage(&self.name, name, StageKind::RouteForm))?;
        Ok(RouteFormStage_TO::from_value(
            RouteFormAdapter(Arc::clone(form)),
            TD_Opaque,
        ))
    }

    /// Constructs the named query grammar stage as an ABI trait object.
    pub fn query_grammar_stage(&self, name: &str) -> Result<QueryGrammarStageBox, PluginError> {
        let (_, grammar) = self
            .query_grammars
            .iter()
            .find(|(info, _)| info.name == name)
            .ok_or_else(|| unknown_stage(&self.name, name, StageKind::QueryGrammar))?;
        Ok(QueryGrammarStage_TO::from_value(
            QueryGrammarAdapter(Arc::clone(grammar)),
            TD_Opaque,
        ))
    }
}

fn unknown_stage(plugin: &str, stage: &str, kind: StageKind) -> PluginError {
    PluginError::new(
        "unknown_stage",
        format!(
            "plugin `{plugin}` has no {} stage named `{stage}`",
            kind.as_str()
        ),
    )
}

/// Runs `f`, turning a panic into a [`PluginError`] with code [`PluginError::PANICKED`].
///
/// Every exported call goes through this, so no unwind ever reaches an `extern "C"` frame.
///
/// A panic inside the guard is not printed by the panic hook (a dynamic plugin's own std would
/// write it to the host's stderr as raw text between JSON log lines): its message and location
/// come back in the error, for the host to log and report. Panics outside a guard reach the hook
/// that was installed before.
pub fn guard<T>(f: impl FnOnce() -> Result<T, PluginError>) -> RResult<T, PluginError> {
    quiet_panics_in_guards();
    GUARDED.with(|depth| depth.set(depth.get() + 1));
    let outcome = catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|depth| depth.set(depth.get().saturating_sub(1)));
    match outcome {
        Ok(Ok(value)) => RResult::ROk(value),
        Ok(Err(error)) => RResult::RErr(error),
        Err(payload) => {
            let location = PANIC_LOCATION
                .with(|location| location.take())
                .map(|location| format!(" at {location}"))
                .unwrap_or_default();
            RResult::RErr(PluginError::new(
                PluginError::PANICKED,
                format!(
                    "the plugin panicked{location}: {}",
                    panic_message(payload.as_ref())
                ),
            ))
        }
    }
}

thread_local! {
    /// How many guards this thread is inside.
    static GUARDED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Where the last guarded panic happened (`file:line`).
    static PANIC_LOCATION: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Installs, once, a panic hook that stays silent inside a guard and defers to the previous hook
/// elsewhere.
fn quiet_panics_in_guards() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.with(std::cell::Cell::get) > 0 {
                let location = info
                    .location()
                    .map(|location| format!("{}:{}", location.file(), location.line()));
                PANIC_LOCATION.with(|slot| *slot.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a non-text panic payload".to_owned()
    }
}

/// Parses a JSON payload and checks its `schema_version`.
pub fn decode_payload<T: DeserializeOwned + SchemaVersioned>(text: &str) -> Result<T, PluginError> {
    let value: T = serde_json::from_str(text).map_err(|error| {
        PluginError::new(
            "invalid_payload",
            format!("the payload is not a valid {}: {error}", T::CONTRACT),
        )
    })?;
    if value.schema_version() != SCHEMA_VERSION {
        return Err(PluginError::new(
            "unsupported_schema_version",
            format!(
                "{} schema_version {} is not supported (this plugin reads {SCHEMA_VERSION})",
                T::CONTRACT,
                value.schema_version()
            ),
        ));
    }
    Ok(value)
}

/// Serializes a JSON payload.
pub fn encode_payload<T: Serialize>(value: &T) -> Result<RString, PluginError> {
    serde_json::to_string(value)
        .map(RString::from)
        .map_err(|error| PluginError::new("invalid_payload", error.to_string()))
}

struct CaptureAdapter(Arc<dyn CaptureExtractor>);

impl CaptureStage for CaptureAdapter {
    fn extract(&self, request: RStr<'_>, bytes: RSlice<'_, u8>) -> RResult<RString, PluginError> {
        guard(|| {
            let request: ExtractRequest = decode_payload(request.as_str())?;
            self.0
                .extract_json(&request, bytes.as_slice())
                .map(RString::from)
        })
    }

    fn extract_reporting(
        &self,
        request: RStr<'_>,
        bytes: RSlice<'_, u8>,
        mut progress: ReadProgressMut<'_>,
    ) -> RResult<RString, PluginError> {
        guard(|| {
            let request: ExtractRequest = decode_payload(request.as_str())?;
            self.0
                .extract_json_reporting(&request, bytes.as_slice(), &mut |read| progress.read(read))
                .map(RString::from)
        })
    }
}

struct ToolAdapter(Arc<dyn AgentTool>);

impl ToolStage for ToolAdapter {
    fn describe(&self) -> RResult<RString, PluginError> {
        guard(|| encode_payload(&self.0.describe()))
    }

    fn call(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        guard(|| {
            let request: ToolCallRequest = decode_payload(request.as_str())?;
            let result = self.0.call(&request.arguments)?;
            encode_payload(&ToolCallOutcome {
                result,
                schema_version: SCHEMA_VERSION,
            })
        })
    }
}

/// A rule stage with its types erased: the calls as the ABI makes them, in JSON text.
trait RuleCalls: Send + Sync + 'static {
    fn learn(&self, request: &str) -> Result<RString, PluginError>;
    fn apply(&self, request: &str, held: Held) -> Result<RString, PluginError>;
    fn held_indexes(&self) -> Result<RString, PluginError>;
    fn learn_scope(&self) -> Result<RString, PluginError>;
    fn check_options(&self, options: &RawOptions) -> Vec<OptionProblem>;
}

struct TypedRule<R>(R);

impl<R: StateRule> RuleCalls for TypedRule<R> {
    fn learn(&self, request: &str) -> Result<RString, PluginError> {
        let mut request: LearnRequest = decode_payload(request)?;
        let options = read_options::<R::Options>(&std::mem::take(&mut request.options))
            .map_err(|problem| invalid_option(&problem))?;
        encode_payload(&self.0.learn(&request.with_options(options))?)
    }

    fn apply(&self, request: &str, held: Held) -> Result<RString, PluginError> {
        let mut request: ApplyRequest = decode_payload(request)?;
        request.call.held = held;
        let rule: R::Rule =
            serde_json::from_value(std::mem::take(&mut request.rule)).map_err(|error| {
                PluginError::new(
                    "invalid_rule",
                    format!("the learned rule does not read back: {error}"),
                )
            })?;
        encode_payload(&self.0.apply(&request.with_rule(rule))?)
    }

    fn held_indexes(&self) -> Result<RString, PluginError> {
        encode_payload(&HeldIndexes {
            kinds: self.0.held_indexes(),
            schema_version: SCHEMA_VERSION,
        })
    }

    fn learn_scope(&self) -> Result<RString, PluginError> {
        encode_payload(&self.0.learn_scope())
    }

    fn check_options(&self, options: &RawOptions) -> Vec<OptionProblem> {
        check_options::<R::Options>(options)
    }
}

struct RouteFormAdapter(Arc<dyn RouteForm>);

impl RouteFormStage for RouteFormAdapter {
    fn apply(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        guard(|| {
            let request: RouteFormRequest = decode_payload(request.as_str())?;
            encode_payload(&self.0.apply(&request)?)
        })
    }

    fn actions(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        guard(|| {
            let request: ActionRouteRequest = decode_payload(request.as_str())?;
            encode_payload(&self.0.actions(&request)?)
        })
    }
}

struct QueryGrammarAdapter(Arc<dyn QueryGrammar>);

impl QueryGrammarStage for QueryGrammarAdapter {
    fn apply(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        guard(|| {
            let request: QueryGrammarRequest = decode_payload(request.as_str())?;
            encode_payload(&self.0.apply(&request)?)
        })
    }

    fn split(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        guard(|| {
            let request: QueryExpressionRequest = decode_payload(request.as_str())?;
            encode_payload(&self.0.split(&request)?)
        })
    }

    fn split_body(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        guard(|| {
            let request: QueryBodyRequest = decode_payload(request.as_str())?;
            encode_payload(&self.0.split_body(&request)?)
        })
    }
}

struct RuleAdapter(Arc<dyn RuleCalls>);

impl RuleStage for RuleAdapter {
    fn learn(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        guard(|| self.0.learn(request.as_str()))
    }

    fn apply(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        guard(|| self.0.apply(request.as_str(), Held::default()))
    }

    fn held_indexes(&self) -> RString {
        // A declaration that cannot be written asks for every held value, as a stage that
        // declares nothing newer would get.
        match guard(|| self.0.held_indexes()) {
            RResult::ROk(text) => text,
            RResult::RErr(_) => RString::from(r#"{"kinds":["values"],"schema_version":1}"#),
        }
    }

    fn apply_held(&self, request: RStr<'_>, held: HeldIndexBox) -> RResult<RString, PluginError> {
        guard(|| self.0.apply(request.as_str(), Held::from_index(held)))
    }

    fn learn_scope(&self) -> RString {
        // A declaration that cannot be written is every tool, as a stage declaring nothing gets.
        match guard(|| self.0.learn_scope()) {
            RResult::ROk(text) => text,
            RResult::RErr(_) => RString::from(EVERY_TOOL),
        }
    }
}

/// A rule as an ABI stage object in this process: the calls go through the JSON text and panic
/// guard a loaded plugin's do (for hosts and tests running a plain-Rust rule directly).
pub fn rule_stage_object(stage: impl StateRule) -> RuleStageBox {
    RuleStage_TO::from_value(RuleAdapter(Arc::new(TypedRule(stage))), TD_Opaque)
}

/// Declares a plugin's root module function.
///
/// `plugin_root_module! { pub fn root_module() = <expression building a Plugin>; }` defines
/// `root_module() -> PluginModuleRef`. The plugin value is built once, lazily, inside a panic
/// guard. Use the function from a cdylib wrapper's `#[export_root_module]` and, for built-in
/// plugins, from [`submit_builtin!`].
#[macro_export]
macro_rules! plugin_root_module {
    ($(#[$meta:meta])* $vis:vis fn $name:ident() = $build:expr;) => {
        $(#[$meta])*
        $vis fn $name() -> $crate::abi::PluginModuleRef {
            use $crate::__private::{
                OnceLock, PrefixTypeTrait, RResult, RStr, RString, guard,
            };
            use $crate::abi::{
                CaptureStageBox, PluginDescriptor, PluginError, PluginModule, PluginModuleRef,
                QueryGrammarStageBox, RouteFormStageBox, RuleStageBox, ToolStageBox,
            };
            static PLUGIN: OnceLock<$crate::export::Plugin> = OnceLock::new();
            static MODULE: OnceLock<PluginModuleRef> = OnceLock::new();

            fn plugin() -> &'static $crate::export::Plugin {
                PLUGIN.get_or_init(|| $build)
            }
            extern "C" fn descriptor() -> RResult<PluginDescriptor, PluginError> {
                guard(|| Ok(plugin().descriptor()))
            }
            extern "C" fn capture_stage(name: RStr<'_>) -> RResult<CaptureStageBox, PluginError> {
                guard(|| plugin().capture_stage(name.as_str()))
            }
            extern "C" fn rule_stage(name: RStr<'_>) -> RResult<RuleStageBox, PluginError> {
                guard(|| plugin().rule_stage(name.as_str()))
            }
            extern "C" fn tool_stage(name: RStr<'_>) -> RResult<ToolStageBox, PluginError> {
                guard(|| plugin().tool_stage(name.as_str()))
            }
            extern "C" fn check_rule_options(
                name: RStr<'_>,
                request: RStr<'_>,
            ) -> RResult<RString, PluginError> {
                guard(|| plugin().check_rule_options(name.as_str(), request.as_str()))
            }
            extern "C" fn route_form_stage(
                name: RStr<'_>,
            ) -> RResult<RouteFormStageBox, PluginError> {
                guard(|| plugin().route_form_stage(name.as_str()))
            }
            extern "C" fn query_grammar_stage(
                name: RStr<'_>,
            ) -> RResult<QueryGrammarStageBox, PluginError> {
                guard(|| plugin().query_grammar_stage(name.as_str()))
            }
            *MODULE.get_or_init(|| {
                PluginModule {
                    descriptor,
                    capture_stage,
                    rule_stage,
                    tool_stage,
                    check_rule_options,
                    route_form_stage,
                    query_grammar_stage,
                }
                .leak_into_prefix()
            })
        }
    };
}

/// Registers a plugin linked into the host as a built-in (through `inventory`).
///
/// The host finds it only when it names the crate (`use rea_plugin_har as _;`).
#[macro_export]
macro_rules! submit_builtin {
    ($root_module:path) => {
        $crate::__private::inventory::submit! {
            $crate::BuiltinPlugin { root_module: $root_module }
        }
    };
}

/// The symbol abi_stable looks up in a plugin library (its `ROOT_MODULE_LOADER_NAME`), spelled out
/// because `#[export_name]` takes a literal. A unit test keeps the two equal.
#[doc(hidden)]
pub const ROOT_MODULE_SYMBOL: &str = "_1as_0lib_1header_0root_bmodule_bloader";

/// Exports a plugin's root module from a cdylib, so the host can load the library by path.
///
/// `rea_plugin_api::export_plugin!(my_plugin::root_module);` does what abi_stable's
/// `#[export_root_module]` does, through this crate's re-export, so a plugin crate needs no direct
/// abi_stable dependency. Use it once per library: the symbol it defines has a fixed name.
#[macro_export]
macro_rules! export_plugin {
    ($root_module:path) => {
        /// The abi_stable library header of this plugin library.
        #[unsafe(export_name = "_1as_0lib_1header_0root_bmodule_bloader")]
        pub static REA_PLUGIN_LIBRARY_HEADER: $crate::abi_stable::library::LibHeader = {
            extern "C" fn rea_erased_root_module() -> $crate::abi_stable::library::RootModuleResult
            {
                $crate::abi_stable::library::__call_root_module_loader($root_module)
            }
            // SAFETY: the constructor returns the `PluginModuleRef` whose layout the header records,
            // exactly as `#[export_root_module]` expands.
            unsafe {
                $crate::abi_stable::library::LibHeader::from_constructor::<$crate::PluginModuleRef>(
                    rea_erased_root_module,
                    $crate::abi_stable::library::CheckTypeLayout::Yes,
                )
            }
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exported_symbol_is_the_one_abi_stable_looks_up() {
        assert_eq!(
            ROOT_MODULE_SYMBOL,
            abi_stable::library::ROOT_MODULE_LOADER_NAME
        );
    }

    /// An extractor that reads its input in halves, and one written before progress existed.
    struct Halves;
    struct Unreporting;

    fn empty_extraction() -> Extraction {
        Extraction {
            container: serde_json::value::RawValue::from_string("{}".to_owned()).unwrap(),
            limitations: Vec::new(),
            records: Vec::new(),
            records_pointer: "/log/entries".to_owned(),
            redactions: Vec::new(),
            schema_version: SCHEMA_VERSION,
        }
    }

    impl CaptureExtractor for Halves {
        fn extract(&self, _: &ExtractRequest, _: &[u8]) -> Result<Extraction, PluginError> {
            Ok(empty_extraction())
        }
        fn extract_json_reporting(
            &self,
            request: &ExtractRequest,
            bytes: &[u8],
            read: &mut dyn FnMut(u64),
        ) -> Result<String, PluginError> {
            read(bytes.len() as u64 / 2);
            read(bytes.len() as u64);
            self.extract_json(request, bytes)
        }
    }

    impl CaptureExtractor for Unreporting {
        fn extract(&self, _: &ExtractRequest, _: &[u8]) -> Result<Extraction, PluginError> {
            Ok(empty_extraction())
        }
    }

    #[derive(Default)]
    struct Heard(Vec<u64>);

    impl crate::abi::ReadProgress for Heard {
        fn read(&mut self, bytes: u64) {
            self.0.push(bytes);
        }
    }

    /// What `extract_reporting` answers through the ABI object, and the reports it made.
    fn extract_reporting(extractor: impl CaptureExtractor) -> (String, Vec<u64>) {
        let stage = Plugin::new("p", "1.0.0")
            .capture(StageInfo::new("c", "test"), extractor)
            .capture_stage("c")
            .unwrap();
        let request = serde_json::to_string(&ExtractRequest {
            input_kind: "har".to_owned(),
            sensitive_values: Vec::new(),
            schema_version: SCHEMA_VERSION,
        })
        .unwrap();
        let mut heard = Heard::default();
        let progress = crate::abi::ReadProgress_TO::from_ptr(&mut heard, TD_Opaque);
        let answer = stage
            .extract_reporting(
                RStr::from_str(&request),
                RSlice::from_slice(b"0123456789"),
                progress,
            )
            .unwrap();
        (answer.into_string(), heard.0)
    }

    #[test]
    fn an_extractor_reports_its_reading_through_the_abi_and_one_that_does_not_still_extracts() {
        let expected = serde_json::to_string(&empty_extraction()).unwrap();
        assert_eq!(extract_reporting(Halves), (expected.clone(), vec![5, 10]));
        assert_eq!(extract_reporting(Unreporting), (expected, Vec::new()));
    }

    /// A rule stage as one built before held indexes: only `learn` and `apply` (the methods
    /// after them are the trait's defaults, what an older plugin's missing ones answer).
    struct Older;

    impl RuleStage for Older {
        fn learn(&self, _: RStr<'_>) -> RResult<RString, PluginError> {
            RResult::RErr(PluginError::new("unused", "unused"))
        }
        fn apply(&self, _: RStr<'_>) -> RResult<RString, PluginError> {
            RResult::ROk(RString::from(r#"{"set":{"/applied":true}}"#))
        }
    }

    /// A rule asking the largest id held, and the index answering it.
    struct Numbering;

    impl StateRule for Numbering {
        type Options = crate::contracts::rule::NoOptions;
        type Rule = serde_json::Value;
        fn learn(&self, _: &LearnRequest<Self::Options>) -> Result<LearnOutcome, PluginError> {
            Ok(LearnOutcome::no_explanation("unused"))
        }
        fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, PluginError> {
            let mut outcome = ApplyOutcome::default();
            let next = request.call.largest_integer("/id").map_or(1, |id| id + 1);
            outcome.set.insert("/id".into(), (next as i64).into());
            Ok(outcome)
        }
        fn held_indexes(&self) -> Vec<HeldIndexKind> {
            vec![HeldIndexKind::LargestInteger]
        }
    }

    struct Largest;

    impl crate::abi::HeldIndex for Largest {
        fn largest_integer(&self, pointer: RStr<'_>) -> abi_stable::std_types::ROption<RString> {
            match pointer.as_str() {
                "/id" => abi_stable::std_types::ROption::RSome(RString::from("41")),
                _ => abi_stable::std_types::ROption::RNone,
            }
        }
        fn holds_text(&self, _: RStr<'_>, _: RStr<'_>, _: bool) -> bool {
            false
        }
        fn strings(&self, _: RStr<'_>) -> RVec<RString> {
            RVec::new()
        }
    }

    #[test]
    fn a_stage_built_before_held_indexes_asks_for_every_value_and_a_new_one_gets_its_answers() {
        let request = serde_json::to_string(&ApplyRequest {
            call: crate::contracts::rule::ServedCall::default(),
            rule: serde_json::Value::Null,
            schema_version: SCHEMA_VERSION,
            tool: crate::contracts::rule::ToolRef {
                method: "POST".into(),
                name: "post_items".into(),
                path_template: "/items".into(),
            },
        })
        .unwrap();
        let held = || crate::abi::HeldIndex_TO::from_value(Largest, TD_Opaque);
        let older = RuleStage_TO::from_value(Older, TD_Opaque);
        assert_eq!(
            HeldIndexes::declared(older.held_indexes().as_str()),
            [HeldIndexKind::Values]
        );
        let applied = older.apply_held(RStr::from_str(&request), held()).unwrap();
        assert_eq!(applied.as_str(), r#"{"set":{"/applied":true}}"#);
        let stage = rule_stage_object(Numbering);
        assert_eq!(
            HeldIndexes::declared(stage.held_indexes().as_str()),
            [HeldIndexKind::LargestInteger]
        );
        let applied: ApplyOutcome = serde_json::from_str(
            stage
                .apply_held(RStr::from_str(&request), held())
                .unwrap()
                .as_str(),
        )
        .unwrap();
        assert_eq!(applied.set["/id"], serde_json::json!(42));
        // Without the index, the listed values answer (none here).
        let applied: ApplyOutcome =
            serde_json::from_str(stage.apply(RStr::from_str(&request)).unwrap().as_str()).unwrap();
        assert_eq!(applied.set["/id"], serde_json::json!(1));
    }

    /// A rule declaring the effects it learns for, joining only by explaining.
    struct Scoped;

    impl StateRule for Scoped {
        type Options = crate::contracts::rule::NoOptions;
        type Rule = serde_json::Value;
        fn learn(&self, _: &LearnRequest<Self::Options>) -> Result<LearnOutcome, PluginError> {
            Ok(LearnOutcome::no_explanation("unused"))
        }
        fn apply(&self, _: &ApplyRequest) -> Result<ApplyOutcome, PluginError> {
            Ok(ApplyOutcome::default())
        }
        fn learn_scope(&self) -> LearnScope {
            use crate::contracts::rule::Effect::{Action, Update};
            LearnScope::effects([Update, Action]).explaining()
        }
    }

    #[test]
    fn a_stage_built_before_learn_scopes_is_asked_for_every_tool_and_a_new_one_within_its_own() {
        use crate::contracts::rule::Effect::{Action, Create, Delete, Update};
        let every = LearnScope::default();
        assert_eq!(LearnScope::declared(EVERY_TOOL), every);
        // A stage built before the declaration, one not written and one not read back.
        let older = RuleStage_TO::from_value(Older, TD_Opaque);
        assert_eq!(LearnScope::declared(older.learn_scope().as_str()), every);
        assert_eq!(LearnScope::declared(""), every);
        assert_eq!(LearnScope::declared(r#"{"effects":["unheard-of"]}"#), every);
        let without = rule_stage_object(Numbering);
        assert_eq!(LearnScope::declared(without.learn_scope().as_str()), every);
        for (effect, unexplained) in [(Create, true), (Delete, false)] {
            assert!(every.asks(effect, unexplained));
        }
        let scoped = LearnScope::declared(rule_stage_object(Scoped).learn_scope().as_str());
        assert_eq!(scoped, LearnScope::effects([Update, Action]).explaining());
        assert!(scoped.asks(Update, true));
        assert!(!scoped.asks(Update, false), "nothing left to explain");
        assert!(
            !scoped.asks(Create, true),
            "an effect it does not learn for"
        );
        // Effects alone: asked with nothing unexplained (a placement or dependents stage).
        let placing = LearnScope::effects([Create]);
        assert!(placing.asks(Create, false));
        assert!(!placing.asks(Delete, true));
    }

    struct Panics;

    impl StateRule for Panics {
        type Options = crate::contracts::rule::NoOptions;
        type Rule = serde_json::Value;
        fn learn(&self, _: &LearnRequest<Self::Options>) -> Result<LearnOutcome, PluginError> {
            panic!("boom in learn");
        }
        fn apply(&self, _: &ApplyRequest) -> Result<ApplyOutcome, PluginError> {
            Ok(ApplyOutcome::default())
        }
    }

    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct LimitOptions {
        #[allow(dead_code)]
        limit: u32,
    }

    struct Limited;

    impl StateRule for Limited {
        type Options = LimitOptions;
        type Rule = u32;
        fn learn(
            &self,
            request: &LearnRequest<LimitOptions>,
        ) -> Result<LearnOutcome<u32>, PluginError> {
            Ok(LearnOutcome::learned(Vec::new(), request.options.limit))
        }
        fn apply(&self, request: &ApplyRequest<u32>) -> Result<ApplyOutcome, PluginError> {
            let mut outcome = ApplyOutcome::default();
            outcome.set.insert("/limit".into(), request.rule.into());
            Ok(outcome)
        }
    }

    #[test]
    fn typed_options_and_rules_cross_as_json_and_are_checked() {
        let plugin = Plugin::new("p", "1.0.0").rule(StageInfo::new("limited", "limits"), Limited);
        let descriptor = plugin.descriptor();
        assert_eq!(descriptor.stages[0].options.as_slice(), ["limit"]);
        let check = |options: serde_json::Value| -> OptionsCheck {
            let request = serde_json::json!({"options": options, "schema_version": 1}).to_string();
            let answer = plugin
                .check_rule_options("limited", &request)
                .expect("checked");
            serde_json::from_str(answer.as_str()).expect("an options check")
        };
        assert!(check(serde_json::json!({"limit": 3})).problems.is_empty());
        let problems = check(serde_json::json!({"limit": "three"})).problems;
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].pointer, "/limit");
        assert_eq!(check(serde_json::json!({})).problems[0].pointer, "");
        let stage = plugin.rule_stage("limited").expect("constructed");
        let learn = serde_json::json!({
            "calls": [], "effect": "update", "identity_field": null, "schema_version": 1,
            "options": {"limit": 7},
            "tool": {"method": "PATCH", "name": "t", "path_template": "/t/{id}"}
        })
        .to_string();
        let outcome: LearnOutcome =
            serde_json::from_str(stage.learn(RStr::from_str(&learn)).unwrap().as_str()).unwrap();
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("learned")
        };
        assert_eq!(rule, serde_json::json!(7));
        let apply = serde_json::json!({
            "call": {"body": null, "clock": null, "entity_before": null, "state_evidence_id": "ev_x", "write_count": 0},
            "rule": "not a number", "schema_version": 1,
            "tool": {"method": "PATCH", "name": "t", "path_template": "/t/{id}"}
        })
        .to_string();
        let error = stage
            .apply(RStr::from_str(&apply))
            .into_result()
            .expect_err("refused");
        assert_eq!(error.code.as_str(), "invalid_rule");
        let bad_options = learn.replace("{\"limit\":7}", "{\"limit\":-7}");
        let error = stage
            .learn(RStr::from_str(&bad_options))
            .into_result()
            .expect_err("refused");
        assert_eq!(error.code.as_str(), "invalid_option");
    }

    #[test]
    fn a_panicking_stage_answers_a_structured_error() {
        let plugin = Plugin::new("p", "1.0.0").rule(StageInfo::new("panics", "panics"), Panics);
        let stage = plugin.rule_stage("panics").expect("constructed");
        let request = serde_json::json!({
            "calls": [], "effect": "update", "identity_field": null, "schema_version": 1,
            "tool": {"method": "PATCH", "name": "t", "path_template": "/t/{id}"}
        })
        .to_string();
        let answer = stage.learn(RStr::from_str(&request)).into_result();
        let error = answer.expect_err("the panic is an error");
        assert_eq!(error.code.as_str(), PluginError::PANICKED);
        assert!(error.message.as_str().contains("boom in learn"));
        // The stage still answers afterwards.
        let apply = serde_json::json!({
            "call": {"body": null, "clock": null, "entity_before": null, "state_evidence_id": "ev_x", "write_count": 0},
            "rule": {}, "schema_version": 1,
            "tool": {"method": "PATCH", "name": "t", "path_template": "/t/{id}"}
        })
        .to_string();
        assert!(stage.apply(RStr::from_str(&apply)).is_ok());
    }

    struct LastSegment;

    impl RouteForm for LastSegment {
        fn apply(&self, request: &RouteFormRequest) -> Result<RouteFormOutcome, PluginError> {
            if request.routes.is_empty() {
                panic!("boom in a route form");
            }
            Ok(RouteFormOutcome {
                changes: request
                    .routes
                    .iter()
                    .enumerate()
                    .map(|(route, recorded)| crate::contracts::route::SegmentChange {
                        route,
                        segment: recorded.segments.len() - 1,
                        form: crate::contracts::route::SegmentForm::whole("last"),
                    })
                    .collect(),
                query_families: Vec::new(),
                schema_version: SCHEMA_VERSION,
            })
        }
    }

    #[test]
    fn a_route_form_crosses_as_json_and_its_panic_is_a_structured_error() {
        let plugin =
            Plugin::new("p", "1.0.0").route_form(StageInfo::new("last", "last"), LastSegment);
        let descriptor = plugin.descriptor();
        let kinds: Vec<&str> = descriptor
            .stages
            .iter()
            .map(|stage| stage.kind.as_str())
            .collect();
        assert_eq!(kinds, vec![StageKind::ROUTE_FORM]);
        assert!(
            plugin.rule_stage("last").is_err(),
            "a route form is no rule stage"
        );
        let stage = plugin.route_form_stage("last").expect("constructed");
        let request = serde_json::json!({"schema_version": 1, "routes": [
            {"method": "GET", "segments": ["a", "b"], "decoded": ["a", "b"], "forms": [null, null],
             "answer": {"status": 204, "json": null}}]})
        .to_string();
        let outcome: RouteFormOutcome =
            serde_json::from_str(stage.apply(RStr::from_str(&request)).unwrap().as_str()).unwrap();
        assert_eq!(outcome.changes.len(), 1);
        assert_eq!(
            (outcome.changes[0].route, outcome.changes[0].segment),
            (0, 1)
        );
        assert_eq!(outcome.changes[0].form.placeholder(), "{last}");
        let empty = serde_json::json!({"schema_version": 1, "routes": []}).to_string();
        assert_panics_and_refuses_other_versions(|text| stage.apply(text), &empty, &request);
    }

    #[test]
    fn a_route_form_without_actions_recognises_no_action_route() {
        // A form written before `actions` (it implements `apply` alone) answers none through the
        // ABI, so a plugin built before the method keeps working unchanged.
        let plugin =
            Plugin::new("p", "1.0.0").route_form(StageInfo::new("last", "last"), LastSegment);
        let stage = plugin.route_form_stage("last").expect("constructed");
        let request = serde_json::json!({"schema_version": 1, "routes": [
            {"method": "POST", "segments": ["t", "{numeric}", "-", "update"],
             "parameters": [false, true, false, false]}]})
        .to_string();
        let answer = stage.actions(RStr::from_str(&request)).unwrap();
        let outcome: ActionRouteOutcome = serde_json::from_str(answer.as_str()).unwrap();
        assert!(outcome.actions.is_empty());
        // The request of another schema version is refused.
        let other = request.replace("\"schema_version\":1", "\"schema_version\":2");
        assert!(stage.actions(RStr::from_str(&other)).into_result().is_err());
    }

    /// A stage's panic (on `panicking`) is a structured error, and a `request` of another schema
    /// version is refused.
    fn assert_panics_and_refuses_other_versions(
        apply: impl Fn(RStr<'_>) -> RResult<RString, PluginError>,
        panicking: &str,
        request: &str,
    ) {
        let error = apply(RStr::from_str(panicking))
            .into_result()
            .expect_err("the panic is an error");
        assert_eq!(error.code.as_str(), PluginError::PANICKED);
        let other_version = request.replace("\"schema_version\":1", "\"schema_version\":99");
        assert!(apply(RStr::from_str(&other_version)).is_err());
    }

    struct EveryFieldEquals;

    impl QueryGrammar for EveryFieldEquals {
        fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, PluginError> {
            if request.lists.is_empty() {
                panic!("boom in a query grammar");
            }
            Ok(QueryGrammarOutcome {
                lists: request
                    .lists
                    .iter()
                    .map(|list| {
                        list.fields
                            .iter()
                            .map(|field| {
                                (
                                    field.clone(),
                                    crate::contracts::query::QueryRole::filter(field, "eq"),
                                )
                            })
                            .collect()
                    })
                    .collect(),
                families: Vec::new(),
                schema_version: SCHEMA_VERSION,
            })
        }
    }

    #[test]
    fn a_query_grammar_crosses_as_json_and_its_panic_is_a_structured_error() {
        let plugin = Plugin::new("p", "1.0.0")
            .query_grammar(StageInfo::new("equals", "equals"), EveryFieldEquals);
        let kinds: Vec<String> = plugin
            .descriptor()
            .stages
            .iter()
            .map(|stage| stage.kind.to_string())
            .collect();
        assert_eq!(kinds, vec![StageKind::QUERY_GRAMMAR]);
        assert!(plugin.route_form_stage("equals").is_err());
        let stage = plugin.query_grammar_stage("equals").expect("constructed");
        let request = serde_json::json!({"schema_version": 1, "lists": [
            {"established": {}, "fields": ["status"], "recorded_names": []}]})
        .to_string();
        let outcome: QueryGrammarOutcome =
            serde_json::from_str(stage.apply(RStr::from_str(&request)).unwrap().as_str()).unwrap();
        assert_eq!(
            outcome.lists[0].get("status"),
            Some(&crate::contracts::query::QueryRole::filter("status", "eq"))
        );
        let empty = serde_json::json!({"schema_version": 1, "lists": []}).to_string();
        assert_panics_and_refuses_other_versions(|text| stage.apply(text), &empty, &request);
    }

    #[test]
    fn a_payload_of_another_schema_version_is_refused() {
        let plugin = Plugin::new("p", "1.0.0").rule(StageInfo::new("panics", "panics"), Panics);
        let stage = plugin.rule_stage("panics").expect("constructed");
        let request = serde_json::json!({
            "calls": [], "effect": "update", "identity_field": null, "schema_version": 99,
            "tool": {"method": "PATCH", "name": "t", "path_template": "/t/{id}"}
        })
        .to_string();
        let error = stage
            .learn(RStr::from_str(&request))
            .into_result()
            .expect_err("refused");
        assert_eq!(error.code.as_str(), "unsupported_schema_version");
    }

    #[test]
    fn an_unknown_stage_is_a_structured_error() {
        let plugin = Plugin::new("p", "1.0.0");
        let error = plugin.rule_stage("nope").err().expect("refused");
        assert_eq!(error.code.as_str(), "unknown_stage");
    }
}

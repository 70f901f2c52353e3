//! The stable ABI between the `rea` host and its plugins.
//!
//! Everything here is `#[repr(C)]` and derives [`StableAbi`], so abi_stable can check at load time
//! that a plugin library was built against a layout the host understands. The shape is:
//!
//! * [`PluginModule`] is the root module (a prefix type): one per plugin library. Its fields are
//!   `extern "C"` functions that describe the plugin and construct its stage objects.
//! * [`PluginDescriptor`] and [`StageDescriptor`] are typed descriptions (no JSON).
//! * Stage objects are `#[sabi_trait]` trait objects: [`CaptureStage`], [`RuleStage`],
//!   [`ToolStage`], [`RouteFormStage`] and [`QueryGrammarStage`] (added after the first release, as the evolution rules below describe), and the host's [`ReadProgress`] and [`HeldIndex`] objects a stage is given. Their
//!   payloads are JSON text (see [`crate::contracts`]) borrowed as [`RStr`], never copied.
//! * Every call returns [`RResult`] with a [`PluginError`]; a panic inside a plugin is caught on the
//!   plugin side (see [`crate::export`]) and comes back as a `PluginError` whose code is
//!   [`PluginError::PANICKED`].
//!
//! # Evolving the ABI without breaking built plugins
//!
//! * Add new root-module functions **after** the field marked `#[sabi(last_prefix_field)]`; the
//!   host reads them through the generated accessor, which returns `None` for older plugins.
//! * Add new trait methods at the **end** of a `#[sabi_trait]` trait, after its
//!   `#[sabi(last_prefix_field)]` method, and give them a default implementation.
//! * Never remove, reorder or retype a field or method, and never change a descriptor struct; add a
//!   new struct and a new function that returns it instead.
//! * New stage kinds are new strings in [`StageDescriptor::kind`] plus a new constructor function;
//!   a host that does not know a kind lists it and ignores it.
//! * JSON payloads carry `schema_version`; add optional members freely, bump the version for any
//!   change an older reader would misread.

// abi_stable's `#[sabi_trait]` expansion defines impls inside a const block.
#![allow(non_local_definitions)]

use abi_stable::{
    StableAbi, declare_root_module_statics,
    library::RootModule,
    package_version_strings, sabi_trait,
    sabi_types::{RMut, VersionStrings},
    std_types::{RBox, ROption, RResult, RSlice, RStr, RString, RVec},
};

/// A structured error that crosses the plugin boundary.
#[repr(C)]
#[derive(StableAbi, Debug, Clone, PartialEq, Eq)]
pub struct PluginError {
    /// A stable snake_case code, such as `invalid_input` or [`PluginError::PANICKED`].
    pub code: RString,
    /// One human-readable sentence.
    pub message: RString,
    /// Optional JSON text with structured detail (for example `{"category": …, "pointer": …}`);
    /// empty when there is none.
    pub detail_json: RString,
}

impl PluginError {
    /// The code of the error the export helpers return when a plugin call panicked.
    pub const PANICKED: &'static str = "plugin_panicked";

    /// An error with a code and message and no detail.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: RString::from(code.into()),
            message: RString::from(message.into()),
            detail_json: RString::new(),
        }
    }

    /// An error carrying structured detail as JSON text.
    pub fn with_detail(
        code: impl Into<String>,
        message: impl Into<String>,
        detail: &serde_json::Value,
    ) -> Self {
        Self {
            code: RString::from(code.into()),
            message: RString::from(message.into()),
            detail_json: RString::from(detail.to_string()),
        }
    }
}

impl std::fmt::Display for PluginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for PluginError {}

/// What a plugin library is and what it provides.
#[repr(C)]
#[derive(StableAbi, Debug, Clone, PartialEq, Eq)]
pub struct PluginDescriptor {
    /// The plugin's unique name (kebab-case).
    pub name: RString,
    /// The plugin's own version (semver).
    pub version: RString,
    /// The version of `rea-plugin-api` the plugin was built against (semver).
    pub api_version: RString,
    /// The stages the plugin provides, in the plugin's order.
    pub stages: RVec<StageDescriptor>,
}

/// One stage a plugin provides.
#[repr(C)]
#[derive(StableAbi, Debug, Clone, PartialEq, Eq)]
pub struct StageDescriptor {
    /// The stage's unique name, used by pipelines (kebab-case).
    pub name: RString,
    /// The stage kind: [`StageKind::CAPTURE`] or [`StageKind::RULE`] (strings so kinds can be
    /// added without breaking the layout).
    pub kind: RString,
    /// One sentence on what the stage does.
    pub summary: RString,
    /// For capture stages: the input kinds it reads (such as `har`). Empty for other kinds.
    pub inputs: RVec<RString>,
    /// The option names the stage accepts in a pipeline (others are refused by validation).
    pub options: RVec<RString>,
}

/// The stage kinds this version of the API defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StageKind {
    /// A capture extractor: a recorded capture file in, records out.
    Capture,
    /// A state rule: `learn` from observed writes, `apply` to served calls.
    Rule,
    /// An MCP tool a plugin contributes to `rea mcp`'s catalog, in a family it declares.
    Tool,
    /// A route form: which segments of recorded paths are parameters, and which part of a
    /// segment (the manifest's path templates).
    RouteForm,
    /// A query grammar: which query parameters an application's lists accept beyond those
    /// their recordings named (the state's list query models).
    QueryGrammar,
}

impl StageKind {
    /// The descriptor spelling of [`StageKind::Capture`].
    pub const CAPTURE: &'static str = "capture";
    /// The descriptor spelling of [`StageKind::Rule`].
    pub const RULE: &'static str = "rule";
    /// The descriptor spelling of [`StageKind::Tool`].
    pub const TOOL: &'static str = "tool";
    /// The descriptor spelling of [`StageKind::RouteForm`].
    pub const ROUTE_FORM: &'static str = "route-form";
    /// The descriptor spelling of [`StageKind::QueryGrammar`].
    pub const QUERY_GRAMMAR: &'static str = "query-grammar";

    /// The descriptor spelling of this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            StageKind::Capture => Self::CAPTURE,
            StageKind::Rule => Self::RULE,
            StageKind::Tool => Self::TOOL,
            StageKind::RouteForm => Self::ROUTE_FORM,
            StageKind::QueryGrammar => Self::QUERY_GRAMMAR,
        }
    }

    /// Parses a descriptor spelling; `None` for kinds this API version does not know.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            Self::CAPTURE => Some(StageKind::Capture),
            Self::RULE => Some(StageKind::Rule),
            Self::TOOL => Some(StageKind::Tool),
            Self::ROUTE_FORM => Some(StageKind::RouteForm),
            Self::QUERY_GRAMMAR => Some(StageKind::QueryGrammar),
            _ => None,
        }
    }
}

/// A capture extractor stage: a recorded capture file in, records out.
///
/// `request` is a [`crate::contracts::capture::ExtractRequest`] as JSON text; the answer is a
/// [`crate::contracts::capture::Extraction`] as JSON text.
#[sabi_trait]
pub trait CaptureStage: Send + Sync + 'static {
    /// Extracts records from the bytes of one capture file.
    #[sabi(last_prefix_field)]
    fn extract(&self, request: RStr<'_>, bytes: RSlice<'_, u8>) -> RResult<RString, PluginError>;

    /// [`CaptureStage::extract`], telling `progress` how far into `bytes` it has read, so the
    /// host can show a byte-based percentage of a long extraction. Added after the first prefix:
    /// a plugin built before it has no such method, and the default (an extraction that reports
    /// nothing) answers in its place.
    fn extract_reporting(
        &self,
        request: RStr<'_>,
        bytes: RSlice<'_, u8>,
        progress: ReadProgressMut<'_>,
    ) -> RResult<RString, PluginError> {
        let _ = progress;
        self.extract(request, bytes)
    }
}

/// Where an extractor reports how far it has read its input (the host's side of
/// [`CaptureStage::extract_reporting`]).
#[sabi_trait]
pub trait ReadProgress {
    /// The first `bytes` bytes of the input are read. Calls come from the thread that called
    /// the extractor, with `bytes` never decreasing.
    #[sabi(last_prefix_field)]
    fn read(&mut self, bytes: u64);
}

/// A borrowed [`ReadProgress`] trait object, as it crosses the ABI.
pub type ReadProgressMut<'a> = ReadProgress_TO<'a, RMut<'a, ()>>;

/// A boxed [`CaptureStage`] trait object.
pub type CaptureStageBox = CaptureStage_TO<RBox<()>>;

/// A state rule stage.
///
/// `learn` takes a [`crate::contracts::rule::LearnRequest`] and answers a
/// [`crate::contracts::rule::LearnOutcome`]; `apply` takes a
/// [`crate::contracts::rule::ApplyRequest`] and answers a
/// [`crate::contracts::rule::ApplyOutcome`]. All as JSON text.
#[sabi_trait]
pub trait RuleStage: Send + Sync + 'static {
    /// Learns a rule from observations of a tool's recorded writes and the reads around them.
    fn learn(&self, request: RStr<'_>) -> RResult<RString, PluginError>;

    /// Applies a learned rule to a served call: the field values it sets.
    #[sabi(last_prefix_field)]
    fn apply(&self, request: RStr<'_>) -> RResult<RString, PluginError>;

    /// The held indexes the stage's `apply` asks about: a
    /// [`crate::contracts::rule::HeldIndexes`] as JSON text. Added after `apply`: a stage built
    /// before it answers the default, [`crate::contracts::rule::HeldIndexKind::Values`] (every
    /// held value in `ServedCall::held_values`, as the host passed them then).
    fn held_indexes(&self) -> RString {
        RString::from(r#"{"kinds":["values"],"schema_version":1}"#)
    }

    /// [`RuleStage::apply`], with the host's answers to the questions of the kinds the stage
    /// declared (`held`, for `ServedCall::held`). Added after `apply`: a stage built before it
    /// has none, and the default applies without them (the host calls it only for a stage that
    /// declared kinds other than `values`).
    fn apply_held(&self, request: RStr<'_>, held: HeldIndexBox) -> RResult<RString, PluginError> {
        drop(held);
        self.apply(request)
    }

    /// When the stage's `learn` can explain anything: a
    /// [`crate::contracts::rule::LearnScope`] as JSON text. Added after `apply_held`: a stage
    /// built before it answers the default, every tool (asked for every tool, as then).
    fn learn_scope(&self) -> RString {
        RString::from(crate::export::EVERY_TOOL)
    }
}

/// A boxed [`RuleStage`] trait object.
pub type RuleStageBox = RuleStage_TO<RBox<()>>;

/// What the collection a served write writes holds, as a rule asks it (the host's side of
/// [`RuleStage::apply_held`]): answered from indexes the host keeps as served writes change the
/// collection, never by listing it. `pointer` names a top-level field the rule explains; a field
/// the host keeps no index of the asked kind for answers nothing (no integer, not held, no
/// strings). Owned and thread-safe, since a rule stage's call may outlive the caller's wait (the
/// host abandons a call past its deadline).
#[sabi_trait]
pub trait HeldIndex: Send + Sync + 'static {
    /// The largest integer held at the field (a JSON number within 64 bits or a string of
    /// digits), or a sequence generated there, in decimal digits.
    fn largest_integer(&self, pointer: RStr<'_>) -> ROption<RString>;

    /// Whether a value spelled `text` is held at the field (a string's text, an integer
    /// number's digits), or a sequence generated it; with `ignore_case`, whether a string equal
    /// to `text` with ASCII case ignored is held there.
    fn holds_text(&self, pointer: RStr<'_>, text: RStr<'_>, ignore_case: bool) -> bool;

    /// The distinct strings held at the field.
    #[sabi(last_prefix_field)]
    fn strings(&self, pointer: RStr<'_>) -> RVec<RString>;
}

/// A boxed [`HeldIndex`] trait object, as it crosses the ABI.
pub type HeldIndexBox = HeldIndex_TO<RBox<()>>;

/// An MCP tool stage: a tool a plugin contributes to `rea mcp`'s catalog.
///
/// `describe` answers a [`crate::contracts::tool::ToolDescription`] (family, title, description,
/// input schema, annotations); `call` takes a [`crate::contracts::tool::ToolCallRequest`] and
/// answers a [`crate::contracts::tool::ToolCallOutcome`]. All as JSON text.
#[sabi_trait]
pub trait ToolStage: Send + Sync + 'static {
    /// Describes the tool.
    fn describe(&self) -> RResult<RString, PluginError>;

    /// Answers one call whose arguments already passed the tool's input schema.
    #[sabi(last_prefix_field)]
    fn call(&self, request: RStr<'_>) -> RResult<RString, PluginError>;
}

/// A boxed [`ToolStage`] trait object.
pub type ToolStageBox = ToolStage_TO<RBox<()>>;

/// A route form stage: which literal segments of one origin's recorded paths become parameters.
///
/// `apply` takes a [`crate::contracts::route::RouteFormRequest`] and answers a
/// [`crate::contracts::route::RouteFormOutcome`], both as JSON text.
#[sabi_trait]
pub trait RouteFormStage: Send + Sync + 'static {
    /// Proposes parameter forms for literal segments of the request's routes.
    #[sabi(last_prefix_field)]
    fn apply(&self, request: RStr<'_>) -> RResult<RString, PluginError>;

    /// Says which write routes act on the entity a parameter segment names: `request` is a
    /// [`crate::contracts::route::ActionRouteRequest`], the answer a
    /// [`crate::contracts::route::ActionRouteOutcome`]. Added after `apply`: a form built before
    /// it recognises no action route.
    fn actions(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        let _ = request;
        RResult::ROk(RString::from(r#"{"schema_version":1,"actions":[]}"#))
    }
}

/// A boxed [`RouteFormStage`] trait object.
pub type RouteFormStageBox = RouteFormStage_TO<RBox<()>>;

/// A query grammar stage: which query parameters a state's lists accept beyond those their
/// recordings named.
///
/// `apply` takes a [`crate::contracts::query::QueryGrammarRequest`] and answers a
/// [`crate::contracts::query::QueryGrammarOutcome`], both as JSON text.
#[sabi_trait]
pub trait QueryGrammarStage: Send + Sync + 'static {
    /// Proposes the parameters each list of the request accepts, with their roles.
    #[sabi(last_prefix_field)]
    fn apply(&self, request: RStr<'_>) -> RResult<RString, PluginError>;

    /// Splits one query parameter whose value is an expression of the grammar's language into
    /// terms: `request` is a [`crate::contracts::query::QueryExpressionRequest`], the answer a
    /// [`crate::contracts::query::QueryExpressionOutcome`]. Added after `apply`: a grammar built
    /// before it splits nothing.
    fn split(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        let _ = request;
        RResult::ROk(RString::from(r#"{"schema_version":1,"terms":null}"#))
    }

    /// Splits the request body of a read whose query is its body into terms: `request` is a
    /// [`crate::contracts::query::QueryBodyRequest`], the answer a
    /// [`crate::contracts::query::QueryExpressionOutcome`]. Added after `split`: a grammar built
    /// before it reads no body.
    fn split_body(&self, request: RStr<'_>) -> RResult<RString, PluginError> {
        let _ = request;
        RResult::ROk(RString::from(r#"{"schema_version":1,"terms":null}"#))
    }
}

/// A boxed [`QueryGrammarStage`] trait object.
pub type QueryGrammarStageBox = QueryGrammarStage_TO<RBox<()>>;

/// The root module of a plugin library.
///
/// Built-in plugins produce the same value from their `root_module()` function, so the registry
/// handles both kinds through one code path.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginModuleRef)))]
#[sabi(missing_field(panic))]
pub struct PluginModule {
    /// Describes the plugin.
    pub descriptor: extern "C" fn() -> RResult<PluginDescriptor, PluginError>,
    /// Constructs the capture stage with that name.
    pub capture_stage: extern "C" fn(name: RStr<'_>) -> RResult<CaptureStageBox, PluginError>,
    /// Constructs the rule stage with that name.
    #[sabi(last_prefix_field)]
    pub rule_stage: extern "C" fn(name: RStr<'_>) -> RResult<RuleStageBox, PluginError>,
    /// Constructs the tool stage with that name. Added after the first prefix: a plugin built
    /// before it has none, and the generated accessor answers `None`.
    #[sabi(missing_field(option))]
    pub tool_stage: extern "C" fn(name: RStr<'_>) -> RResult<ToolStageBox, PluginError>,
    /// Checks option values of the rule stage with that name: `request` is a
    /// [`crate::contracts::rule::OptionsCheckRequest`], the answer a
    /// [`crate::contracts::rule::OptionsCheck`], both JSON text. Added after tool stages: a plugin
    /// built before it has none (the accessor answers `None`), and its option values are checked
    /// only when it learns.
    #[sabi(missing_field(option))]
    pub check_rule_options:
        extern "C" fn(name: RStr<'_>, request: RStr<'_>) -> RResult<RString, PluginError>,
    /// Constructs the route form stage with that name. Added after the options check: a plugin
    /// built before it has none, and the generated accessor answers `None`.
    #[sabi(missing_field(option))]
    pub route_form_stage: extern "C" fn(name: RStr<'_>) -> RResult<RouteFormStageBox, PluginError>,
    /// Constructs the query grammar stage with that name. Added after route forms: a plugin
    /// built before it has none, and the generated accessor answers `None`.
    #[sabi(missing_field(option))]
    pub query_grammar_stage:
        extern "C" fn(name: RStr<'_>) -> RResult<QueryGrammarStageBox, PluginError>,
}

impl RootModule for PluginModuleRef {
    declare_root_module_statics! {PluginModuleRef}
    const BASE_NAME: &'static str = "rea_plugin";
    const NAME: &'static str = "rea_plugin";
    const VERSION_STRINGS: VersionStrings = package_version_strings!();
}

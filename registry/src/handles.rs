//! Stage handles: typed calls into a plugin's stage objects.
//!
//! A handle owns the ABI trait object; calls pass JSON text borrowed as `RStr` and parse the
//! answer into the contract's type. A plugin error (including a caught panic) is a
//! [`StageCallError::Plugin`]; an answer that does not parse is [`StageCallError::InvalidAnswer`].

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RSlice, RStr};
use rea_plugin_api::abi::ReadProgress_TO;
use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::capture::{ExtractRequest, Extraction};
use rea_plugin_api::contracts::query::{
    QueryBodyRequest, QueryExpressionOutcome, QueryExpressionRequest, QueryGrammarOutcome,
    QueryGrammarRequest,
};
use rea_plugin_api::contracts::route::{
    ActionRouteOutcome, ActionRouteRequest, RouteFormOutcome, RouteFormRequest,
};
use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, HeldIndexKind, HeldIndexes, LearnOutcome, LearnRequest, LearnScope,
    OptionProblem, OptionsCheck, OptionsCheckRequest, RawOptions,
};
use rea_plugin_api::contracts::tool::{ToolCallOutcome, ToolCallRequest, ToolDescription};
use rea_plugin_api::{
    CaptureStageBox, HeldIndexBox, PluginError, QueryGrammarStageBox, ReadProgress,
    RouteFormStageBox, RuleStageBox, ToolStageBox,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{LoadedPlugin, LoadedStage, RegistryError};

/// How much unused room an encoded request may keep (past it the room is given back).
const SLACK_KEPT_BYTES: usize = 1 << 20;

/// A failed call into a stage.
#[derive(Debug, thiserror::Error)]
pub enum StageCallError {
    /// The plugin answered an error (a panic inside it arrives as code `plugin_panicked`).
    #[error("stage {stage} of plugin {plugin} failed: {error}")]
    Plugin {
        /// The plugin.
        plugin: String,
        /// The stage.
        stage: String,
        /// Its error.
        error: Box<PluginError>,
    },
    /// The plugin's answer is not the contract's JSON.
    #[error(
        "stage {stage} of plugin {plugin} answered something that is not a {contract}: {reason}"
    )]
    InvalidAnswer {
        /// The plugin.
        plugin: String,
        /// The stage.
        stage: String,
        /// The contract expected.
        contract: &'static str,
        /// The parse error.
        reason: String,
    },
}

impl StageCallError {
    /// The plugin's error, when the plugin answered one.
    pub fn plugin_error(&self) -> Option<&PluginError> {
        match self {
            StageCallError::Plugin { error, .. } => Some(error.as_ref()),
            StageCallError::InvalidAnswer { .. } => None,
        }
    }
}

/// Why option values could not be checked: no such rule stage, or the call failed.
#[derive(Debug, thiserror::Error)]
pub enum RuleOptionsError {
    /// No rule stage has that name.
    #[error(transparent)]
    Stage(#[from] RegistryError),
    /// The plugin's check failed or answered something else.
    #[error(transparent)]
    Call(#[from] StageCallError),
}

struct StageName {
    plugin: String,
    stage: String,
}

impl StageName {
    fn of(plugin: &LoadedPlugin, stage: &LoadedStage) -> Self {
        Self {
            plugin: plugin.name.clone(),
            stage: stage.name.clone(),
        }
    }

    /// The stage object a plugin's constructor answered, or the construction error naming it.
    fn constructed<T>(
        plugin: &LoadedPlugin,
        stage: &LoadedStage,
        answer: abi_stable::std_types::RResult<T, PluginError>,
    ) -> Result<(Self, T), RegistryError> {
        let object = answer
            .into_result()
            .map_err(|error| RegistryError::StageConstruction {
                plugin: plugin.name.clone(),
                stage: stage.name.clone(),
                reason: error.to_string(),
            })?;
        Ok((Self::of(plugin, stage), object))
    }

    /// The stage object of a stage kind added after the first prefix: its constructor (`None`
    /// when the plugin was built against an API without that kind) called with the stage's name.
    fn constructed_optional<T>(
        plugin: &LoadedPlugin,
        stage: &LoadedStage,
        constructor: Option<
            extern "C" fn(RStr<'_>) -> abi_stable::std_types::RResult<T, PluginError>,
        >,
        kind: &str,
    ) -> Result<(Self, T), RegistryError> {
        let constructor = constructor.ok_or_else(|| kind_missing(plugin, stage, kind))?;
        Self::constructed(plugin, stage, constructor(RStr::from_str(&stage.name)))
    }

    fn encode<T: Serialize>(
        &self,
        value: &T,
        contract: &'static str,
    ) -> Result<String, StageCallError> {
        let mut text =
            serde_json::to_string(value).map_err(|error| StageCallError::InvalidAnswer {
                plugin: self.plugin.clone(),
                stage: self.stage.clone(),
                contract,
                reason: error.to_string(),
            })?;
        // A large request grew by doubling: give the room it will not use back before the stage
        // builds its own copy of it (the build's peak is such an exchange).
        if text.capacity() - text.len() > SLACK_KEPT_BYTES {
            text.shrink_to_fit();
        }
        Ok(text)
    }

    fn decode<T: DeserializeOwned>(
        &self,
        answer: abi_stable::std_types::RResult<abi_stable::std_types::RString, PluginError>,
        contract: &'static str,
    ) -> Result<T, StageCallError> {
        self.decode_within(answer, contract, usize::MAX)
    }

    /// One JSON exchange with a stage: the request encoded, `call` given its text, the answer
    /// decoded (refused unread past [`MAX_RULE_ANSWER_BYTES`]).
    fn exchange<Q: Serialize, A: DeserializeOwned>(
        &self,
        request: &Q,
        contracts: (&'static str, &'static str),
        call: impl FnOnce(
            RStr<'_>,
        )
            -> abi_stable::std_types::RResult<abi_stable::std_types::RString, PluginError>,
    ) -> Result<A, StageCallError> {
        let text = self.encode(request, contracts.0)?;
        self.decode_within(
            call(RStr::from_str(&text)),
            contracts.1,
            MAX_RULE_ANSWER_BYTES,
        )
    }

    /// [`Self::decode`], refusing an answer longer than `limit` bytes before reading it.
    fn decode_within<T: DeserializeOwned>(
        &self,
        answer: abi_stable::std_types::RResult<abi_stable::std_types::RString, PluginError>,
        contract: &'static str,
        limit: usize,
    ) -> Result<T, StageCallError> {
        let text = answer
            .into_result()
            .map_err(|error| StageCallError::Plugin {
                plugin: self.plugin.clone(),
                stage: self.stage.clone(),
                error: Box::new(error),
            })?;
        if text.len() > limit {
            return Err(StageCallError::InvalidAnswer {
                plugin: self.plugin.clone(),
                stage: self.stage.clone(),
                contract,
                reason: format!(
                    "the answer takes {} bytes, over the {limit} bytes a {contract} may take",
                    text.len()
                ),
            });
        }
        serde_json::from_str(text.as_str()).map_err(|error| StageCallError::InvalidAnswer {
            plugin: self.plugin.clone(),
            stage: self.stage.clone(),
            contract,
            reason: error.to_string(),
        })
    }
}

/// `Debug` and the `plugin()` / `stage()` names every stage handle shares.
macro_rules! stage_handle_names {
    ($handle:ident) => {
        impl std::fmt::Debug for $handle {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    concat!(stringify!($handle), "({}/{})"),
                    self.name.plugin, self.name.stage
                )
            }
        }

        impl $handle {
            /// The plugin's name.
            pub fn plugin(&self) -> &str {
                &self.name.plugin
            }

            /// The stage's name (for a tool stage: the MCP tool name).
            pub fn stage(&self) -> &str {
                &self.name.stage
            }
        }
    };
}

/// A capture extractor stage.
pub struct CaptureHandle {
    name: StageName,
    stage: CaptureStageBox,
}

stage_handle_names!(CaptureHandle);

impl CaptureHandle {
    pub(crate) fn construct(
        plugin: &LoadedPlugin,
        stage: &LoadedStage,
    ) -> Result<Self, RegistryError> {
        let (name, stage) = StageName::constructed(
            plugin,
            stage,
            plugin.module.capture_stage()(RStr::from_str(&stage.name)),
        )?;
        Ok(Self { name, stage })
    }

    /// Extracts the records of one capture file.
    pub fn extract(
        &self,
        request: &ExtractRequest,
        bytes: &[u8],
    ) -> Result<Extraction, StageCallError> {
        let request = self.name.encode(request, "capture extract request")?;
        let answer = self
            .stage
            .extract(RStr::from_str(&request), RSlice::from_slice(bytes));
        self.name.decode(answer, "capture extraction")
    }

    /// Extracts and returns the answer's JSON text unparsed (for byte-for-byte comparisons).
    pub fn extract_raw(
        &self,
        request: &ExtractRequest,
        bytes: &[u8],
    ) -> Result<String, StageCallError> {
        self.extract_raw_reporting(request, bytes, &mut |_| {})
    }

    /// [`Self::extract_raw`], with `read` hearing how many bytes of the input the extractor has
    /// read so far (a plugin built before the ABI had progress reports nothing).
    pub fn extract_raw_reporting(
        &self,
        request: &ExtractRequest,
        bytes: &[u8],
        read: &mut dyn FnMut(u64),
    ) -> Result<String, StageCallError> {
        let request = self.name.encode(request, "capture extract request")?;
        let mut sink = ReadSink(read);
        let progress = ReadProgress_TO::from_ptr(&mut sink, TD_Opaque);
        self.stage
            .extract_reporting(
                RStr::from_str(&request),
                RSlice::from_slice(bytes),
                progress,
            )
            .into_result()
            .map(|text| text.into_string())
            .map_err(|error| StageCallError::Plugin {
                plugin: self.name.plugin.clone(),
                stage: self.name.stage.clone(),
                error: Box::new(error),
            })
    }
}

/// The host's end of a capture stage's progress reports: the caller's closure. A panic in it
/// would unwind through the plugin's `extern "C"` frames, so it is caught here and the report
/// dropped.
struct ReadSink<'a>(&'a mut dyn FnMut(u64));

impl ReadProgress for ReadSink<'_> {
    fn read(&mut self, bytes: u64) {
        let read = &mut self.0;
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(bytes)));
    }
}

/// The most bytes of JSON a rule stage's answer may take (16 MiB): a learned rule and the values
/// it sets are small; a stage answering more is refused rather than parsed.
pub const MAX_RULE_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// A state rule stage, with the held-index kinds its `apply` asks about (asked once, when the
/// stage is constructed).
pub struct RuleHandle {
    name: StageName,
    stage: RuleStageBox,
    held_indexes: Vec<HeldIndexKind>,
    learn_scope: LearnScope,
}

stage_handle_names!(RuleHandle);

impl RuleHandle {
    pub(crate) fn construct(
        plugin: &LoadedPlugin,
        stage: &LoadedStage,
    ) -> Result<Self, RegistryError> {
        let (name, stage) = StageName::constructed(
            plugin,
            stage,
            plugin.module.rule_stage()(RStr::from_str(&stage.name)),
        )?;
        let held_indexes = HeldIndexes::declared(stage.held_indexes().as_str());
        let learn_scope = LearnScope::declared(stage.learn_scope().as_str());
        Ok(Self {
            name,
            stage,
            held_indexes,
            learn_scope,
        })
    }

    /// When the stage's `learn` can explain anything (every tool for a stage built before the
    /// declaration).
    pub fn learn_scope(&self) -> &LearnScope {
        &self.learn_scope
    }

    /// The held-index kinds the stage's `apply` asks about ([`HeldIndexKind::Values`] for a
    /// stage built before the declaration).
    pub fn held_indexes(&self) -> &[HeldIndexKind] {
        &self.held_indexes
    }

    /// [`RuleHandle::apply`], with the host's answers about the written collection (for a stage
    /// that declared held-index kinds).
    pub fn apply_held(
        &self,
        request: &ApplyRequest,
        held: HeldIndexBox,
    ) -> Result<ApplyOutcome, StageCallError> {
        let request = self.name.encode(request, "rule apply request")?;
        self.name.decode_within(
            self.stage.apply_held(RStr::from_str(&request), held),
            "rule apply outcome",
            MAX_RULE_ANSWER_BYTES,
        )
    }

    /// Asks the rule to learn from observations (an answer over [`MAX_RULE_ANSWER_BYTES`] is
    /// refused unread).
    pub fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, StageCallError> {
        let request = self.name.encode(request, "rule learn request")?;
        self.learn_text(&request)
    }

    /// [`RuleHandle::learn`] of a request already encoded as the contract's JSON text (what
    /// crosses the ABI): a host asking several stages about one tool encodes its calls once.
    pub fn learn_text(&self, request: &str) -> Result<LearnOutcome, StageCallError> {
        self.name.decode_within(
            self.stage.learn(RStr::from_str(request)),
            "rule learn outcome",
            MAX_RULE_ANSWER_BYTES,
        )
    }

    /// Applies a learned rule to a served call (an answer over [`MAX_RULE_ANSWER_BYTES`] is
    /// refused unread).
    pub fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, StageCallError> {
        let request = self.name.encode(request, "rule apply request")?;
        self.name.decode_within(
            self.stage.apply(RStr::from_str(&request)),
            "rule apply outcome",
            MAX_RULE_ANSWER_BYTES,
        )
    }
}

/// Asks a plugin whether option values fit its rule stage's options: the problems, or `None`
/// when the plugin was built before the check existed (its values are checked only when it
/// learns).
pub(crate) fn check_rule_options(
    plugin: &LoadedPlugin,
    stage: &LoadedStage,
    options: &RawOptions,
) -> Result<Option<Vec<OptionProblem>>, StageCallError> {
    let Some(check) = plugin.module.check_rule_options() else {
        return Ok(None);
    };
    let name = StageName::of(plugin, stage);
    let request = name.encode(
        &OptionsCheckRequest {
            options: options.clone(),
            schema_version: SCHEMA_VERSION,
        },
        "rule options check request",
    )?;
    let answer: OptionsCheck = name.decode(
        check(RStr::from_str(&stage.name), RStr::from_str(&request)),
        "rule options check",
    )?;
    Ok(Some(answer.problems))
}

/// A plugin built against an older plugin API lacks the constructor of a newer stage kind.
fn kind_missing(plugin: &LoadedPlugin, stage: &LoadedStage, kind: &str) -> RegistryError {
    RegistryError::StageConstruction {
        plugin: plugin.name.clone(),
        stage: stage.name.clone(),
        reason: format!("the plugin was built against a plugin API without {kind} stages"),
    }
}

/// A tool stage: an MCP tool a plugin contributes.
pub struct ToolHandle {
    name: StageName,
    stage: ToolStageBox,
}

stage_handle_names!(ToolHandle);

impl ToolHandle {
    pub(crate) fn construct(
        plugin: &LoadedPlugin,
        stage: &LoadedStage,
    ) -> Result<Self, RegistryError> {
        let (name, stage) =
            StageName::constructed_optional(plugin, stage, plugin.module.tool_stage(), "tool")?;
        Ok(Self { name, stage })
    }

    /// The tool's family, title, description, input schema and annotations.
    pub fn describe(&self) -> Result<ToolDescription, StageCallError> {
        self.name.decode(self.stage.describe(), "tool description")
    }

    /// Calls the tool with arguments that already passed its input schema.
    pub fn call(
        &self,
        arguments: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, StageCallError> {
        let request = self.name.encode(
            &ToolCallRequest {
                arguments: arguments.clone(),
                schema_version: SCHEMA_VERSION,
            },
            "tool call request",
        )?;
        let outcome: ToolCallOutcome = self.name.decode(
            self.stage.call(RStr::from_str(&request)),
            "tool call outcome",
        )?;
        Ok(outcome.result)
    }
}

/// A route form stage: proposes which literal segments of recorded paths are parameters.
pub struct RouteFormHandle {
    name: StageName,
    stage: RouteFormStageBox,
}

stage_handle_names!(RouteFormHandle);

impl RouteFormHandle {
    pub(crate) fn construct(
        plugin: &LoadedPlugin,
        stage: &LoadedStage,
    ) -> Result<Self, RegistryError> {
        let (name, stage) = StageName::constructed_optional(
            plugin,
            stage,
            plugin.module.route_form_stage(),
            "route form",
        )?;
        Ok(Self { name, stage })
    }

    /// Asks the form which literal segments of one origin's routes are parameters (an answer
    /// over [`MAX_RULE_ANSWER_BYTES`] is refused unread).
    pub fn apply(&self, request: &RouteFormRequest) -> Result<RouteFormOutcome, StageCallError> {
        self.name.exchange(
            request,
            ("route form request", "route form outcome"),
            |text| self.stage.apply(text),
        )
    }

    /// [`Self::apply`] of a request already encoded as the contract's JSON text (what crosses the
    /// ABI): a host asking several forms in turn holds the request once, as text.
    pub fn apply_text(&self, request: &str) -> Result<RouteFormOutcome, StageCallError> {
        self.name.decode_within(
            self.stage.apply(RStr::from_str(request)),
            "route form outcome",
            MAX_RULE_ANSWER_BYTES,
        )
    }

    /// Asks the form which write routes act on the entity a parameter segment names (a form
    /// built before the question recognises none).
    pub fn actions(
        &self,
        request: &ActionRouteRequest,
    ) -> Result<ActionRouteOutcome, StageCallError> {
        self.name.exchange(
            request,
            ("action route request", "action route outcome"),
            |text| self.stage.actions(text),
        )
    }
}

/// A query grammar stage: proposes the query parameters a state's lists accept beyond those their
/// recordings named.
pub struct QueryGrammarHandle {
    name: StageName,
    stage: QueryGrammarStageBox,
}

stage_handle_names!(QueryGrammarHandle);

impl QueryGrammarHandle {
    pub(crate) fn construct(
        plugin: &LoadedPlugin,
        stage: &LoadedStage,
    ) -> Result<Self, RegistryError> {
        let (name, stage) = StageName::constructed_optional(
            plugin,
            stage,
            plugin.module.query_grammar_stage(),
            "query grammar",
        )?;
        Ok(Self { name, stage })
    }

    /// Asks the grammar which parameters each list accepts (an answer over
    /// [`MAX_RULE_ANSWER_BYTES`] is refused unread).
    pub fn apply(
        &self,
        request: &QueryGrammarRequest,
    ) -> Result<QueryGrammarOutcome, StageCallError> {
        self.name.exchange(
            request,
            ("query grammar request", "query grammar outcome"),
            |text| self.stage.apply(text),
        )
    }

    /// Asks the grammar whether a query parameter's value is an expression of its language, and
    /// its terms if so.
    pub fn split(
        &self,
        request: &QueryExpressionRequest,
    ) -> Result<QueryExpressionOutcome, StageCallError> {
        self.name.exchange(
            request,
            ("query expression request", "query expression outcome"),
            |text| self.stage.split(text),
        )
    }

    /// Asks the grammar for the terms of a read's request body, if the body is of its language.
    pub fn split_body(
        &self,
        request: &QueryBodyRequest,
    ) -> Result<QueryExpressionOutcome, StageCallError> {
        self.name.exchange(
            request,
            ("query body request", "query expression outcome"),
            |text| self.stage.split_body(text),
        )
    }
}

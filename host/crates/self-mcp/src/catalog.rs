//! The tool catalog: every tool `rea mcp` can serve, each in a family, contributed by the host and
//! by plugins.
//!
//! A tool is a [`ToolSpec`] (name, family, description, input schema, annotations) and a
//! [`ToolHandler`]. The catalog holds them all; a [`crate::scope::ToolScope`] selects the
//! families that are advertised. Built-in families are [`FAMILY_CAPTURE`], [`FAMILY_VIEWS`],
//! [`FAMILY_ENVIRONMENT`] and [`FAMILY_GUIDANCE`]; a plugin may register tools under a family of
//! its own.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rea_evidence::Refusal;
use serde_json::{Map, Value, json};

use crate::error::SelfMcpError;
use crate::guidance::BundleSource;
use crate::ledger::{EvidenceDocument, EvidenceLedger};
use crate::scope::ToolScope;
use crate::workflows::ScopedWorkflows;

/// Capture inspection tools.
pub const FAMILY_CAPTURE: &str = "capture";
/// View projection tools (manifest, state, coverage).
pub const FAMILY_VIEWS: &str = "views";
/// Environment bundle tools.
pub const FAMILY_ENVIRONMENT: &str = "environment";
/// Guidance tools: guided workflows and guidance search.
pub const FAMILY_GUIDANCE: &str = "guidance";
/// The families rea itself ships; any other family is contributed (by a plugin).
pub const BUILTIN_FAMILIES: &[&str] = &[
    FAMILY_CAPTURE,
    FAMILY_VIEWS,
    FAMILY_ENVIRONMENT,
    FAMILY_GUIDANCE,
];

/// Names of the tools `rea` itself contributes.
pub mod tool_names {
    /// HAR → capture Evidence.
    pub const INSPECT_WEB_NETWORK_CAPTURE: &str = "inspect_web_network_capture";
    /// Evidence → a view (environment manifest, state, coverage).
    pub const INSPECT_ANALYSIS_VIEW: &str = "inspect_analysis_view";
    /// Retained capture Evidence → an environment bundle (issue 7).
    pub const EXPORT_ENVIRONMENT_BUNDLE: &str = "export_environment_bundle";
    /// Manifest, capture and probes → comparison Evidence (`rea environment-compare`).
    pub const COMPARE_ENVIRONMENT: &str = "compare_environment";
    /// A capture file (`.har` or capture Evidence) → an environment bundle, in one call.
    pub const BUILD_ENVIRONMENT: &str = "build_environment";
    /// List or render the guided workflows.
    pub const GUIDED_WORKFLOWS: &str = "guided_workflows";
    /// Search the guidance bundle.
    pub const SEARCH_GUIDANCE: &str = "search_guidance";
    /// Read one guidance section.
    pub const READ_GUIDANCE_SECTION: &str = "read_guidance_section";
}

/// How a tool is advertised.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// MCP tool name: 1 to 128 characters of `[A-Za-z0-9_.-]`.
    pub name: String,
    /// The family the scope selects it by.
    pub family: String,
    /// A short human title.
    pub title: String,
    /// What the tool does and returns.
    pub description: String,
    /// The JSON Schema of its arguments (an object schema).
    pub input_schema: Map<String, Value>,
    /// MCP annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`).
    pub annotations: Map<String, Value>,
}

impl ToolSpec {
    /// The tool as `tools/list` advertises it.
    pub fn to_mcp(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations,
        })
    }
}

/// What a tool call sees besides its arguments.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// A snapshot of the session's Evidence ledger when the call started.
    pub ledger: EvidenceLedger,
    /// The workflows in the current scope (for `guided_workflows`).
    pub workflows: Arc<ScopedWorkflows>,
    /// Where guidance is read from.
    pub guidance: BundleSource,
}

/// The outcome of one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// The result document (returned inline), or the refusal.
    pub result: Result<Value, Refusal>,
    /// The exact text of the result when it has one (Evidence as its stage wrote it); otherwise
    /// the result is written as JSON.
    pub text: Option<Arc<str>>,
    /// Evidence documents the session retains from this call.
    pub retain: Vec<EvidenceDocument>,
}

impl ToolOutcome {
    /// A result that is not Evidence (guidance, workflow text).
    pub fn value(value: Value) -> Self {
        Self {
            result: Ok(value),
            text: None,
            retain: Vec::new(),
        }
    }

    /// A result that is an Evidence document: returned inline, in its exact text, and retained
    /// by the session.
    pub fn evidence(evidence: EvidenceDocument) -> Self {
        Self {
            result: Ok(Value::clone(&evidence.value)),
            text: Some(Arc::clone(&evidence.canonical)),
            retain: vec![evidence],
        }
    }

    /// A refusal.
    pub fn refused(refusal: Refusal) -> Self {
        Self {
            result: Err(refusal),
            text: None,
            retain: Vec::new(),
        }
    }
}

impl From<Result<Value, Refusal>> for ToolOutcome {
    fn from(result: Result<Value, Refusal>) -> Self {
        Self {
            result,
            text: None,
            retain: Vec::new(),
        }
    }
}

/// One tool's behaviour. Calls run on a blocking thread: a handler may do file I/O and CPU work.
pub trait ToolHandler: Send + Sync {
    /// Answers one call whose arguments already passed the tool's input schema.
    fn call(&self, arguments: &Map<String, Value>, context: &ToolContext) -> ToolOutcome;
}

impl<F> ToolHandler for F
where
    F: Fn(&Map<String, Value>, &ToolContext) -> ToolOutcome + Send + Sync,
{
    fn call(&self, arguments: &Map<String, Value>, context: &ToolContext) -> ToolOutcome {
        self(arguments, context)
    }
}

/// A registered tool.
#[derive(Clone)]
pub struct CatalogEntry {
    /// How it is advertised.
    pub spec: ToolSpec,
    /// What it does.
    pub handler: Arc<dyn ToolHandler>,
}

impl std::fmt::Debug for CatalogEntry {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("CatalogEntry")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

/// Every tool the host and plugins contributed, by name.
#[derive(Debug, Clone, Default)]
pub struct ToolCatalog {
    tools: BTreeMap<String, CatalogEntry>,
}

impl ToolCatalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a tool; a second tool of the same name, an illegal name or an illegal family
    /// is an error.
    pub fn register(
        &mut self,
        spec: ToolSpec,
        handler: Arc<dyn ToolHandler>,
    ) -> Result<(), SelfMcpError> {
        if !is_legal_tool_name(&spec.name) {
            return Err(SelfMcpError::IllegalToolName(spec.name));
        }
        if !is_legal_family_name(&spec.family) {
            return Err(SelfMcpError::IllegalFamilyName(spec.family));
        }
        if self.tools.contains_key(&spec.name) {
            return Err(SelfMcpError::DuplicateTool(spec.name));
        }
        self.tools
            .insert(spec.name.clone(), CatalogEntry { spec, handler });
        Ok(())
    }

    /// Every family some tool belongs to.
    pub fn families(&self) -> BTreeSet<String> {
        self.tools
            .values()
            .map(|entry| entry.spec.family.clone())
            .collect()
    }

    /// Every tool, by name.
    pub fn entries(&self) -> impl Iterator<Item = &CatalogEntry> {
        self.tools.values()
    }

    /// The tool of this name, whatever the scope.
    pub fn get(&self, name: &str) -> Option<&CatalogEntry> {
        self.tools.get(name)
    }

    /// The tools the scope advertises, by name.
    pub fn in_scope<'a>(&'a self, scope: &'a ToolScope) -> impl Iterator<Item = &'a CatalogEntry> {
        self.tools
            .values()
            .filter(move |entry| scope.admits(&entry.spec.family))
    }

    /// The names of the tools the scope advertises.
    pub fn names_in_scope(&self, scope: &ToolScope) -> BTreeSet<String> {
        self.in_scope(scope)
            .map(|entry| entry.spec.name.clone())
            .collect()
    }

    /// The tools the scope advertises in families rea does not ship ([`BUILTIN_FAMILIES`]),
    /// by family.
    pub fn contributed_in_scope(&self, scope: &ToolScope) -> BTreeMap<String, BTreeSet<String>> {
        let mut families: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for entry in self
            .in_scope(scope)
            .filter(|entry| !BUILTIN_FAMILIES.contains(&entry.spec.family.as_str()))
        {
            families
                .entry(entry.spec.family.clone())
                .or_default()
                .insert(entry.spec.name.clone());
        }
        families
    }
}

/// 1 to 128 characters of `[A-Za-z0-9_.-]`.
pub fn is_legal_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-'))
}

/// `[a-z][a-z0-9_-]*`, at most 64 characters.
pub fn is_legal_family_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= 64
        && bytes.next().is_some_and(|first| first.is_ascii_lowercase())
        && bytes.all(|byte| {
            byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_' || byte == b'-'
        })
}

/// The annotations of a tool that reads its inputs and writes nothing.
pub fn read_only_annotations() -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("readOnlyHint".into(), json!(true));
    map.insert("idempotentHint".into(), json!(true));
    map.insert("openWorldHint".into(), json!(false));
    map
}

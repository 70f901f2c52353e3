//! `rea-registry`: finds, loads, checks and holds plugins.
//!
//! Two sources, one code path: a built-in plugin (linked into the host, registered with
//! `inventory`) and a shared library loaded by path both yield a [`PluginModuleRef`], which
//! [`Registry::admit`] checks (API version, duplicate plugin and stage names) and holds as a
//! [`LoadedPlugin`]. Stage handles ([`CaptureHandle`], [`RuleHandle`]) wrap the ABI trait objects and
//! speak the typed contracts of `rea-plugin-api`.
//!
//! Invariants:
//! * Libraries are never unloaded (abi_stable leaks them), so a handle outlives any registry.
//! * Each library is loaded with `lib_header_from_path(..).init_root_module()`, never
//!   `RootModule::load_from_file`, which caches one module per type and would return the first
//!   plugin for every later file.
//! * A refusal names the file and the reason in one line; the long abi_stable layout report goes
//!   to the debug log.

mod error;
mod handles;
mod loader;

use std::collections::BTreeMap;
use std::path::PathBuf;

use rea_plugin_api::contracts::rule::{OptionProblem, RawOptions};
use rea_plugin_api::{BuiltinPlugin, PluginDescriptor, PluginModuleRef, StageKind};

pub use error::RegistryError;
pub use handles::{
    CaptureHandle, MAX_RULE_ANSWER_BYTES, QueryGrammarHandle, RouteFormHandle, RuleHandle,
    RuleOptionsError, StageCallError, ToolHandle,
};

/// Where a plugin came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginSource {
    /// Linked into the host.
    Builtin,
    /// Loaded from a shared library.
    Library {
        /// The path it was loaded from, as given.
        path: PathBuf,
        /// SHA-256 of the file's bytes (lower-case hex).
        sha256: String,
    },
}

impl PluginSource {
    /// `builtin`, or the library path.
    pub fn display(&self) -> String {
        match self {
            PluginSource::Builtin => "builtin".to_owned(),
            PluginSource::Library { path, .. } => path.display().to_string(),
        }
    }
}

/// One stage of a loaded plugin, as an owned Rust value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedStage {
    /// Unique stage name.
    pub name: String,
    /// Kind as the plugin spelled it (`capture`, `rule`, or a kind this host does not know).
    pub kind: String,
    /// One sentence.
    pub summary: String,
    /// Input kinds (capture stages).
    pub inputs: Vec<String>,
    /// Option names the stage accepts.
    pub options: Vec<String>,
}

impl LoadedStage {
    /// The kind, when this host knows it.
    pub fn known_kind(&self) -> Option<StageKind> {
        StageKind::parse(&self.kind)
    }
}

/// A plugin the registry holds.
#[derive(Clone)]
pub struct LoadedPlugin {
    /// The plugin's name.
    pub name: String,
    /// The plugin's own version.
    pub version: String,
    /// The plugin-API version it was built against.
    pub api_version: String,
    /// Its stages, in the plugin's order.
    pub stages: Vec<LoadedStage>,
    /// Where it came from.
    pub source: PluginSource,
    module: PluginModuleRef,
}

impl std::fmt::Debug for LoadedPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedPlugin")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("api_version", &self.api_version)
            .field("stages", &self.stages)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl LoadedPlugin {
    fn from_descriptor(
        descriptor: PluginDescriptor,
        source: PluginSource,
        module: PluginModuleRef,
    ) -> Self {
        Self {
            name: descriptor.name.into_string(),
            version: descriptor.version.into_string(),
            api_version: descriptor.api_version.into_string(),
            stages: descriptor
                .stages
                .into_iter()
                .map(|stage| LoadedStage {
                    name: stage.name.into_string(),
                    kind: stage.kind.into_string(),
                    summary: stage.summary.into_string(),
                    inputs: stage.inputs.into_iter().map(|s| s.into_string()).collect(),
                    options: stage.options.into_iter().map(|s| s.into_string()).collect(),
                })
                .collect(),
            source,
            module,
        }
    }

    /// The plugin as the JSON `rea plugins --json` prints:
    /// `{name, version, api_version, stages, source}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "version": self.version,
            "api_version": self.api_version,
            "stages": self.stages.iter().map(|stage| serde_json::json!({
                "name": stage.name,
                "kind": stage.kind,
                "summary": stage.summary,
                "inputs": stage.inputs,
                "options": stage.options,
            })).collect::<Vec<_>>(),
            "source": self.source.display(),
        })
    }
}

/// The plugins a host holds, by name, and their stages, by name.
#[derive(Debug, Default)]
pub struct Registry {
    plugins: BTreeMap<String, LoadedPlugin>,
    /// Stage name → plugin name.
    stages: BTreeMap<String, String>,
}

impl Registry {
    /// A registry holding nothing.
    pub fn empty() -> Self {
        Self::default()
    }

    /// A registry holding every built-in plugin linked into this binary.
    pub fn with_builtins() -> Result<Self, RegistryError> {
        let mut registry = Self::empty();
        registry.add_builtins()?;
        Ok(registry)
    }

    /// Admits every built-in plugin, in name order (inventory's order is unspecified).
    pub fn add_builtins(&mut self) -> Result<(), RegistryError> {
        let mut modules: Vec<(String, PluginModuleRef)> = Vec::new();
        for builtin in inventory::iter::<BuiltinPlugin> {
            let module = (builtin.root_module)();
            let descriptor = loader::describe(module, &PluginSource::Builtin)?;
            modules.push((descriptor.name.to_string(), module));
        }
        modules.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, module) in modules {
            self.admit(module, PluginSource::Builtin)?;
        }
        Ok(())
    }

    /// Loads a plugin library from `path`, refusing it when its SHA-256 differs from `pinned_sha256`.
    pub fn load_library(
        &mut self,
        path: impl Into<PathBuf>,
        pinned_sha256: Option<&str>,
    ) -> Result<&LoadedPlugin, RegistryError> {
        let path = path.into();
        let (module, sha256) = loader::load_library(&path, pinned_sha256)?;
        self.admit(module, PluginSource::Library { path, sha256 })
    }

    /// The one code path every plugin goes through: describe, check, hold.
    pub fn admit(
        &mut self,
        module: PluginModuleRef,
        source: PluginSource,
    ) -> Result<&LoadedPlugin, RegistryError> {
        let descriptor = loader::describe(module, &source)?;
        loader::check_api_version(&descriptor, &source)?;
        let plugin = LoadedPlugin::from_descriptor(descriptor, source, module);
        if let Some(existing) = self.plugins.get(&plugin.name) {
            return Err(RegistryError::DuplicatePlugin {
                name: plugin.name.clone(),
                origin: plugin.source.display(),
                existing: existing.source.display(),
            });
        }
        let mut seen = BTreeMap::new();
        for stage in &plugin.stages {
            let owner = self
                .stages
                .get(&stage.name)
                .or_else(|| seen.get(&stage.name));
            if let Some(owner) = owner {
                return Err(RegistryError::DuplicateStage {
                    stage: stage.name.clone(),
                    plugin: plugin.name.clone(),
                    origin: plugin.source.display(),
                    existing_plugin: owner.clone(),
                });
            }
            seen.insert(stage.name.clone(), plugin.name.clone());
        }
        self.stages.extend(seen);
        let name = plugin.name.clone();
        tracing::debug!(plugin = %name, source = %plugin.source.display(), "plugin admitted");
        Ok(self.plugins.entry(name).or_insert(plugin))
    }

    /// Every plugin, sorted by name.
    pub fn plugins(&self) -> impl Iterator<Item = &LoadedPlugin> {
        self.plugins.values()
    }

    /// The plugin with that name.
    pub fn plugin(&self, name: &str) -> Option<&LoadedPlugin> {
        self.plugins.get(name)
    }

    /// The stage with that name and the plugin that provides it.
    pub fn stage(&self, name: &str) -> Option<(&LoadedPlugin, &LoadedStage)> {
        let plugin = self.plugins.get(self.stages.get(name)?)?;
        let stage = plugin.stages.iter().find(|stage| stage.name == name)?;
        Some((plugin, stage))
    }

    /// Every stage of a kind, sorted by stage name.
    pub fn stages_of_kind(&self, kind: StageKind) -> Vec<(&LoadedPlugin, &LoadedStage)> {
        self.stages
            .keys()
            .filter_map(|name| self.stage(name))
            .filter(|(_, stage)| stage.known_kind() == Some(kind))
            .collect()
    }

    /// A handle on the capture stage with that name.
    pub fn capture_stage(&self, name: &str) -> Result<CaptureHandle, RegistryError> {
        let (plugin, stage) = self.stage_of_kind(name, StageKind::Capture)?;
        CaptureHandle::construct(plugin, stage)
    }

    /// A handle on the rule stage with that name.
    pub fn rule_stage(&self, name: &str) -> Result<RuleHandle, RegistryError> {
        let (plugin, stage) = self.stage_of_kind(name, StageKind::Rule)?;
        RuleHandle::construct(plugin, stage)
    }

    /// A handle on the tool stage with that name.
    pub fn tool_stage(&self, name: &str) -> Result<ToolHandle, RegistryError> {
        let (plugin, stage) = self.stage_of_kind(name, StageKind::Tool)?;
        ToolHandle::construct(plugin, stage)
    }

    /// A handle on the route form stage with that name.
    pub fn route_form_stage(&self, name: &str) -> Result<RouteFormHandle, RegistryError> {
        let (plugin, stage) = self.stage_of_kind(name, StageKind::RouteForm)?;
        RouteFormHandle::construct(plugin, stage)
    }

    /// A handle on the query grammar stage with that name.
    pub fn query_grammar_stage(&self, name: &str) -> Result<QueryGrammarHandle, RegistryError> {
        let (plugin, stage) = self.stage_of_kind(name, StageKind::QueryGrammar)?;
        QueryGrammarHandle::construct(plugin, stage)
    }

    /// Asks the rule stage with that name whether option values fit its options: every problem
    /// (none when they fit), or `None` when its plugin predates the check (built against a
    /// plugin API without it; its values are then checked only when it learns).
    pub fn check_rule_options(
        &self,
        name: &str,
        options: &RawOptions,
    ) -> Result<Option<Vec<OptionProblem>>, RuleOptionsError> {
        let (plugin, stage) = self.stage_of_kind(name, StageKind::Rule)?;
        Ok(handles::check_rule_options(plugin, stage, options)?)
    }

    fn stage_of_kind(
        &self,
        name: &str,
        kind: StageKind,
    ) -> Result<(&LoadedPlugin, &LoadedStage), RegistryError> {
        let (plugin, stage) = self
            .stage(name)
            .ok_or_else(|| RegistryError::UnknownStage {
                stage: name.to_owned(),
            })?;
        if stage.known_kind() != Some(kind) {
            return Err(RegistryError::WrongStageKind {
                stage: name.to_owned(),
                expected: kind.as_str().to_owned(),
                actual: stage.kind.clone(),
            });
        }
        Ok((plugin, stage))
    }
}

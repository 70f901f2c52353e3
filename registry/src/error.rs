//! Why the registry refused a plugin or a stage: one variant per reason, each naming the file.

use std::path::PathBuf;

/// A registry refusal.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The library path names no file.
    #[error("plugin library {path}: no such file")]
    MissingFile {
        /// The path as given.
        path: PathBuf,
    },
    /// The path is not a regular file, or could not be read.
    #[error("plugin library {path}: cannot read it: {reason}")]
    Unreadable {
        /// The path as given.
        path: PathBuf,
        /// The I/O error.
        reason: String,
    },
    /// The file's SHA-256 differs from the one the pipeline pins.
    #[error("plugin library {path}: SHA-256 {actual} differs from the pinned {expected}")]
    ChecksumMismatch {
        /// The path as given.
        path: PathBuf,
        /// The pinned digest.
        expected: String,
        /// The file's digest.
        actual: String,
    },
    /// The file is not a shared library, or exports no `rea` plugin root module.
    #[error("plugin library {path}: not a rea plugin ({reason})")]
    NotAPlugin {
        /// The path as given.
        path: PathBuf,
        /// What was missing.
        reason: String,
    },
    /// The library was built against a plugin-API whose ABI layout differs from the host's.
    #[error(
        "plugin library {path}: ABI layout mismatch with this host's plugin API ({summary}); rebuild the plugin against rea-plugin-api {host_api}"
    )]
    LayoutMismatch {
        /// The path as given.
        path: PathBuf,
        /// A one-line summary (the full report is logged at debug level).
        summary: String,
        /// The host's plugin-API version.
        host_api: String,
    },
    /// The plugin was built against a plugin-API version this host cannot serve.
    #[error(
        "plugin {plugin} ({source_display}): built against plugin API {plugin_api}, incompatible with this host's plugin API {host_api}"
    )]
    IncompatibleApiVersion {
        /// The plugin's name, or the library path when the name is unknown.
        plugin: String,
        /// `builtin` or the path.
        source_display: String,
        /// The API version the plugin declares.
        plugin_api: String,
        /// The host's API version.
        host_api: String,
    },
    /// The plugin's descriptor could not be read.
    #[error("plugin {source_display}: its descriptor failed: {reason}")]
    DescriptorFailed {
        /// `builtin` or the path.
        source_display: String,
        /// The plugin's error.
        reason: String,
    },
    /// Two plugins share a name.
    #[error("plugin {name} ({origin}): a plugin with that name is already loaded from {existing}")]
    DuplicatePlugin {
        /// The plugin name.
        name: String,
        /// `builtin` or the path of the refused one.
        origin: String,
        /// `builtin` or the path of the held one.
        existing: String,
    },
    /// Two stages share a name.
    #[error(
        "plugin {plugin} ({origin}): stage {stage} is already provided by plugin {existing_plugin}"
    )]
    DuplicateStage {
        /// The stage name.
        stage: String,
        /// The refused plugin.
        plugin: String,
        /// `builtin` or the path of the refused plugin.
        origin: String,
        /// The plugin that holds the name.
        existing_plugin: String,
    },
    /// No plugin provides a stage with that name.
    #[error("no plugin provides a stage named {stage}")]
    UnknownStage {
        /// The stage name.
        stage: String,
    },
    /// The stage exists with another kind.
    #[error("stage {stage} is a {actual} stage, not a {expected} stage")]
    WrongStageKind {
        /// The stage name.
        stage: String,
        /// The kind asked for.
        expected: String,
        /// The stage's kind.
        actual: String,
    },
    /// The plugin failed to construct the stage.
    #[error("plugin {plugin}: constructing stage {stage} failed: {reason}")]
    StageConstruction {
        /// The plugin.
        plugin: String,
        /// The stage.
        stage: String,
        /// The plugin's error.
        reason: String,
    },
}

impl RegistryError {
    /// A stable snake_case code for structured reports.
    pub fn code(&self) -> &'static str {
        match self {
            RegistryError::MissingFile { .. } => "plugin_missing",
            RegistryError::Unreadable { .. } => "plugin_unreadable",
            RegistryError::ChecksumMismatch { .. } => "plugin_checksum_mismatch",
            RegistryError::NotAPlugin { .. } => "not_a_plugin",
            RegistryError::LayoutMismatch { .. } => "plugin_abi_mismatch",
            RegistryError::IncompatibleApiVersion { .. } => "plugin_api_incompatible",
            RegistryError::DescriptorFailed { .. } => "plugin_descriptor_failed",
            RegistryError::DuplicatePlugin { .. } => "duplicate_plugin",
            RegistryError::DuplicateStage { .. } => "duplicate_stage",
            RegistryError::UnknownStage { .. } => "unknown_stage",
            RegistryError::WrongStageKind { .. } => "wrong_stage_kind",
            RegistryError::StageConstruction { .. } => "stage_construction_failed",
        }
    }
}

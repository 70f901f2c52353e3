//! `rea-plugin-api`: the stable ABI between the `rea` host and its plugins, and the JSON contracts
//! that cross it.
//!
//! This crate does no I/O and pulls in no async runtime or web framework, so a plugin built against
//! it stays small and its behaviour depends only on the payloads it is given.
//!
//! * [`abi`]: the root module, typed descriptors and `#[sabi_trait]` stage objects.
//! * [`export`]: write a plugin in plain Rust; panics are caught on the plugin side.
//! * [`date`]: ISO-8601 / RFC 3339 date-times as applications spell them (on `jiff`).
//! * [`route_fields`]: the id shapes (format rules) and segment parts route forms and the host
//!   share.
//! * [`query_fields`]: the query parameter names, operator words and filter spellings the state
//!   engine and query-grammar stages share.
//! * [`options`]: a rule's pipeline options read into its own type, and checked before it runs.
//! * `testing` (feature `testing`): request builders for a rule's unit tests.
//! * [`contracts`]: serde types of the JSON payloads (capture records, rule observations).
//! * [`json`]: the `rea-json` crate (a strict JSON reader keeping duplicate-key, depth and number
//!   lexeme information, and the canonical writer), re-exported so plugins reach it through this
//!   crate alone.

pub mod abi;
pub mod contracts;
pub mod date;
pub mod export;
pub mod options;
pub mod query_fields;
pub mod query_lists;
pub mod route_fields;
pub mod rule_fields;
#[cfg(feature = "testing")]
pub mod testing;

/// The strict JSON reader and canonical writer (the `rea-json` crate).
pub use rea_json as json;

pub use abi::{
    CaptureStage, CaptureStageBox, HeldIndex, HeldIndexBox, PluginDescriptor, PluginError,
    PluginModule, PluginModuleRef, QueryGrammarStage, QueryGrammarStageBox, ReadProgress,
    ReadProgressMut, RouteFormStage, RouteFormStageBox, RuleStage, RuleStageBox, StageDescriptor,
    StageKind, ToolStage, ToolStageBox,
};
pub use export::{
    AgentTool, CaptureExtractor, Plugin, QueryGrammar, RouteForm, StageInfo, StateRule,
};

/// Re-exported so plugin crates need no direct abi_stable dependency for the common cases.
pub use abi_stable;

/// The version of this crate: the plugin-API version a plugin is built against.
pub const API_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A plugin linked into the host, registered with [`submit_builtin!`].
#[derive(Debug, Clone, Copy)]
pub struct BuiltinPlugin {
    /// Returns the plugin's root module: the same value its cdylib wrapper exports.
    pub root_module: fn() -> PluginModuleRef,
}

inventory::collect!(BuiltinPlugin);

#[doc(hidden)]
pub mod __private {
    pub use crate::export::guard;
    pub use abi_stable::prefix_type::PrefixTypeTrait;
    pub use abi_stable::std_types::{RResult, RStr, RString};
    pub use inventory;
    pub use std::sync::OnceLock;
}

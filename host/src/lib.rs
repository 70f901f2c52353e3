//! `rea`: the host. It parses the command line, builds the plugin registry and pipeline, and runs
//! the commands. Each command lives in its own module under [`commands`]; the pipeline stages they
//! run live in their own crates (`rea-evidence`, …) so tests can drive them without a process.

// Built-in plugins are linked only when named; naming them registers them with `inventory`.
use rea_plugin_browser_scenario as _;
use rea_plugin_har as _;
// The built-in state rules.
use rea_plugin_clock as _;
use rea_plugin_composed as _;
use rea_plugin_dependents as _;
use rea_plugin_held_clock as _;
use rea_plugin_joined_list as _;
use rea_plugin_operator as _;
use rea_plugin_reference as _;
use rea_plugin_revision as _;
use rea_plugin_sequence as _;
use rea_plugin_soft_delete as _;
use rea_plugin_sort_inference as _;
use rea_plugin_stamp as _;
use rea_plugin_toggle as _;
use rea_plugin_unique as _;
use rea_plugin_uuid as _;
// The built-in route forms.
use rea_plugin_route_forms as _;
// The built-in query grammar.
use rea_plugin_query_grammar as _;

pub mod cli;
pub mod commands;
pub mod memory_limit;
pub mod output;
pub mod progress;
pub mod provenance;

/// A registry holding every plugin built into this binary. Use this (not
/// `Registry::with_builtins` directly) from code outside the host, so the built-in plugin crates
/// the host names are linked and `inventory` finds them.
pub fn builtin_registry() -> Result<rea_registry::Registry, rea_registry::RegistryError> {
    rea_registry::Registry::with_builtins()
}

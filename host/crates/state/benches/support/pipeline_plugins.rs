//! The built-in plugins the default pipeline names, linked so the registry finds their stages:
//! the write benchmark loads that pipeline, and the library's tests include this file to check
//! it loads with these alone (a plugin the pipeline gains and this list lacks fails a test, not
//! only the benchmark's run).

use rea_plugin_browser_scenario as _;
use rea_plugin_clock as _;
use rea_plugin_composed as _;
use rea_plugin_dependents as _;
use rea_plugin_har as _;
use rea_plugin_held_clock as _;
use rea_plugin_joined_list as _;
use rea_plugin_operator as _;
use rea_plugin_query_grammar as _;
use rea_plugin_reference as _;
use rea_plugin_revision as _;
use rea_plugin_route_forms as _;
use rea_plugin_sequence as _;
use rea_plugin_soft_delete as _;
use rea_plugin_sort_inference as _;
use rea_plugin_stamp as _;
use rea_plugin_toggle as _;
use rea_plugin_unique as _;
use rea_plugin_uuid as _;

#[cfg(test)]
#[test]
fn the_default_pipeline_loads_with_these_plugins() {
    let mut registry = rea_registry::Registry::with_builtins().expect("registry");
    crate::rules::load_pipeline(None, &mut registry).expect("the default pipeline loads");
}

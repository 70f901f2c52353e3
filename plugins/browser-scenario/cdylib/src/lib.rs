//! The browser-scenario capture extractor as a shared library: exports the same root module as
//! the built-in (`rea_plugin_browser_scenario::root_module`), so the registry loads it by path and
//! gets identical answers.

/// The plugin's root module.
#[abi_stable::export_root_module]
fn root() -> rea_plugin_api::PluginModuleRef {
    rea_plugin_browser_scenario::root_module()
}

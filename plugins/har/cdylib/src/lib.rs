//! The HAR capture extractor as a shared library: exports the same root module as the built-in
//! (`rea_plugin_har::root_module`), so the registry loads it by path and gets identical answers.

rea_plugin_api::export_plugin!(rea_plugin_har::root_module);

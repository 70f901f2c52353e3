//! The one integration-test binary of the workspace (rust-analyzer keeps one `slow-tests`): every
//! module below is one area's tests, each `*_support` module the helpers they share. One binary
//! links the host once instead of once per file.

mod bundle_support;
mod capture_support;
mod compare_support;
mod self_mcp_crate_support;
mod self_mcp_support;
mod serve_support;
mod state_support;

mod bundle_build;
mod bundle_mcp;
mod bundle_refusals;
mod bundle_reproducible;
mod bundle_serving;
mod capture_cdylib;
mod capture_golden;
mod capture_producers;
mod capture_refusals;
mod capture_robustness;
mod capture_sensitive;
mod compare_command;
mod compare_crosscheck;
mod compare_mcp;
mod compare_refusals;
mod compare_state_clocks;
mod fidelity_review;
mod foundation_plugins;
mod house_function_length;
mod manifest_cli;
mod manifest_golden;
mod manifest_list_rule;
mod self_mcp_commands;
mod self_mcp_crate_guidance_search;
mod self_mcp_crate_server;
mod self_mcp_crate_session;
mod self_mcp_plugin_tools;
mod serve_command;
mod serve_conformance;
mod serve_lifecycle;
mod serve_protocol;
mod serve_socket;
mod serve_state_mode;
mod state_consistency;
mod state_data_plane;
mod state_golden;
mod state_limits;
mod state_precomputed;
mod state_probes;
mod state_reads_bundle;
mod state_serve;
mod state_writes;
mod state_writes_semantics;

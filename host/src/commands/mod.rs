//! One module per `rea` command. Each exposes its clap arguments and a `run` function returning
//! `Result<(), CommandFailure>`.

pub mod capture_scenario;
pub mod environment_build;
pub mod environment_compare;
pub mod environment_export;
pub mod environment_serve;
pub mod guidance;
pub mod guided_workflows;
pub mod inspect_capture;
pub mod inspect_view;
pub mod interrupt;
pub mod mcp;
pub mod pipeline;
pub mod plugin_tools;
pub mod plugins;
pub mod serve;

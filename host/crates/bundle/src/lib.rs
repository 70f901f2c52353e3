//! `rea-bundle`: the agentenv bundle of an environment, as a library.
//!
//! A bundle is a folder `agent-env run` builds and runs:
//!
//! ```text
//! README.md                          first line: the description; provenance, what it serves, run, rights
//! envs/NAME/Dockerfile               Debian slim + python3 + bin/rea, non-root, serves on 18765
//! envs/NAME/env.toml                 type = "mcp_server", environment_name
//! envs/NAME/manifest.json            byte-exact copies of the authenticated pair
//! envs/NAME/evidence.json
//! envs/NAME/pipeline.toml            the pipeline, its library paths rewritten to plugins/
//! envs/NAME/state.json               the derived state, write plans and cited records, keyed (when the state serves)
//! envs/NAME/plugins/…                every external plugin library the pipeline loads
//! envs/NAME/bin/rea                  the rea binary, without its debug sections and symbol table
//! artifacts/check_NAME/verify.py     the only file there: async def verify(mcp_url)
//! tasks/smoke.json                   deploy_env (local sandbox), then env_outcome_verifier
//! ```
//!
//! * [`pair`]: the authenticated manifest/capture pair and the bytes the bundle copies.
//! * [`name`]: which names a bundle may take and where the name comes from.
//! * [`predict`]: what the bundle serves, prepared as its server prepares it, and the verifier's
//!   probe, answered by the server's own `tools/call` function.
//! * [`credentials`]: the credential-name scan behind the report's warnings.
//! * [`pipeline`]: the pipeline and plugin libraries the bundle carries.
//! * [`content`]: the text files (README, Dockerfile, env.toml, verify.py, smoke task).
//! * [`headroom`]: the live heap headroom an input must fit before it is read.
//! * [`strip`]: the bundled binary without its debug sections and symbol table (never shipped).
//! * [`output`]: the owned output tree: exclusive creates, `0600`, read-back verification.
//! * [`stale`]: the staging folders a killed writer left, swept before the next write.
//! * [`export`]: the whole export and its report.
//!
//! The commands (`rea environment-export`, `rea environment-build`) and the MCP tool
//! `export_environment_bundle` live in the `rea` crate; they read and inspect the inputs and call
//! [`export::export`].

// `Refusal` is the house's one structured error; returned, not boxed, as in the other crates.
#![allow(clippy::result_large_err)]

pub mod content;
pub mod credentials;
pub mod export;
pub mod headroom;
pub mod name;
pub mod output;
pub mod pair;
pub mod pipeline;
pub mod predict;
pub mod stale;
pub mod strip;

pub use content::{BundledBinary, ServeCommand, StrippedBinary};
pub use credentials::Warning;
pub use export::{BundlePlan, ExportObserver, ExportRequest, Stages, Target, export, plan};
pub use name::{LocalOriginName, check_name, choose_name};
pub use output::{Destination, check_destination};
pub use pair::{AuthenticatedPair, CaptureFile, written_as_json};
pub use pipeline::{BundlePipeline, PipelineLibrary};
pub use predict::{Prediction, VerifyProbe, predict};

/// The stage of the bundle and of `rea environment-export`'s refusals.
pub const EXPORT_STAGE: &str = "environment-export";

/// The stage of `rea environment-build`'s own refusals.
pub const BUILD_STAGE: &str = "environment-build";

/// The stage of the MCP tool's destination refusals.
pub const TOOL_STAGE: &str = "export_environment_bundle";

//! `rea-backends`: what `rea environment-serve` serves behind `rea-serve`'s two traits.
//!
//! `rea-state` answers in its own types and knows no transport; `rea-serve` speaks HTTP, MCP and
//! JSON-RPC and never decides an answer. This crate is the one place that knows both:
//!
//! * [`backend::StateBackend`] is the [`rea_serve::ToolBackend`] of a state environment: the state
//!   catalog and card, each [`rea_state::answer::StateAnswer`] carried as an MCP tool result
//!   ([`backend::tool_answer`]).
//! * [`plane::StatePlane`] is the [`rea_serve::DataPlane`] of `data/reset`, `data/add` and
//!   `data/get`: the calls run in the server's queue and watch its cancellation, a `file` part's
//!   `uri` is read or downloaded here ([`fetch`], reqwest), and each
//!   [`rea_state::plane::DataPlaneError`] becomes its JSON-RPC error ([`plane::rpc_error`]).
//! * [`replay::ReplayBackend`] serves replay (`--replay-only`, or when the state is unavailable);
//!   the bundle's prediction uses the same adapter.
//! * [`startup::prepare`] turns the state's decision ([`rea_state::startup::decide`]) into a
//!   [`Serving`]: the backend and data plane to bind, or replay.
//! * [`status`] reads the state's coverage into the table the commands and the status page show.
//!
//! ```text
//! match rea_backends::prepare(environment, &manifest, &capture_evidence, &name, Arc::new(rules)) {
//!     Serving::State { backend, plane, report, .. } => …,          // rea_serve::app(backend, plane, …)
//!     Serving::Replay { environment, refusal, report } => …,       // ReplayBackend::new(environment, &name)
//! }
//! ```

// `Refusal` is the house's one structured error; it is large, and the calls returning it are not
// hot paths.
#![allow(clippy::result_large_err)]

pub mod backend;
pub mod fetch;
pub mod plane;
pub mod replay;
pub mod startup;
pub mod status;

pub use startup::{
    Serving, prepare, prepare_precomputed, prepare_projected, prepare_with, prepare_within,
};

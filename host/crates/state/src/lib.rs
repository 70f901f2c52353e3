//! `rea-state`: the state a capture observed, served.
//!
//! * Extraction ([`derive`]): capture records and their manifest → a [`StateView`]: entity types
//!   with an identity field, entities with their recorded values (reads before the first related
//!   write), documents, and one view per read tool (`item`, `list`, `document`, or `recorded` with
//!   a reason), each kept only when rendering it from the state reproduces the tool's recordings.
//!   [`evidence`] seals it as `environment-state` Evidence.
//! * The live state ([`store`]): one [`store::LiveState`] behind a [`service::StateService`],
//!   shared by every MCP session and the data plane, reset to the derived state, replaced by
//!   `data/add`, reported by `data/get` as a `rea-state/v1` document ([`intake`] validates one).
//! * Serving: [`backend::StateBackend`] is the [`rea_serve::ToolBackend`] answering read tools
//!   from the live state (replay shape plus `state`, see [`service`]), and [`plane::StatePlane`]
//!   the [`rea_serve::DataPlane`] of `data/reset`, `data/add` and `data/get`. [`startup`] decides,
//!   before binding, whether the state serves or replay does.
//!
//! ```text
//! let (_, rules) = rules::load_pipeline(pipeline_file, &mut registry)?;      // the rule stages
//! let projected = project_state_evidence(&capture_evidence, &template_rules, &rules)?; // inspect-analysis-view
//! match startup::prepare(environment, &manifest, &capture_evidence, &name, Arc::new(rules)) { // environment-serve
//!     Serving::State { backend, plane, report } => …,
//!     Serving::Replay { environment, refusal, report } => …,
//! }
//! ```
//!
//! * Writes ([`writes`]): one write plan per write tool, learned from its recorded calls with the
//!   pipeline's rule stages ([`rules`]) and confirmed by replaying the capture through it; a
//!   served plan's tool joins the catalog and changes the live state
//!   ([`writes::apply`], shared by the confirmation and serving).

// `Refusal` is the house's one structured error; it is large, and the calls returning it are not
// hot paths (tool calls answer `ToolAnswer`s, data-plane calls `RpcError`s).
#![allow(clippy::result_large_err)]

pub mod answer;
pub mod backend;
pub mod clock;
pub mod coverage;
pub mod derive;
pub mod evidence;
pub mod exact;
pub mod fetch;
pub mod instant;
pub mod intake;
pub mod model;
pub mod observation;
pub mod plane;
pub mod query;
pub mod render;
pub mod replay;
pub mod rules;
pub mod service;
pub mod startup;
pub mod store;
pub mod view;
pub mod writes;

pub use derive::derive_state;
pub use evidence::{ProjectedState, project_state_evidence, seal_state};
pub use model::{STATE_VIEW_KIND, StateView};
pub use startup::{Serving, prepare};

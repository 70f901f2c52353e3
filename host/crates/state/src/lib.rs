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
//! * Answering: [`service::StateService::answer`] answers a tool call with a typed
//!   [`answer::StateAnswer`] ([`answering`]: a read from the live state in the replay shape plus
//!   `state`, see [`read`]; a served write, see [`writes::serve`]); [`plane`] holds the data plane's
//!   operations (`data/reset`, `data/add`, `data/get`) and their typed [`plane::DataPlaneError`];
//!   [`catalog`] the state catalog and card. [`startup`] decides, before binding, whether the
//!   state serves or replay does. This crate knows no transport: `rea-backends` carries these
//!   answers over `rea-serve` (MCP results, JSON-RPC errors) and downloads `data/add` files.
//!
//! ```text
//! let (_, rules) = rules::load_pipeline(pipeline_file, &mut registry)?;      // the rule stages
//! let projected = project_state_evidence(&capture_evidence, &template_rules, &rules)?; // inspect-analysis-view
//! match startup::decide(environment, &manifest, &capture_evidence, &name, Arc::new(rules)) { // environment-serve
//!     Decision::State(ServedState { service, tools, report }) => …,
//!     Decision::Replay { environment, refusal, report } => …,
//! }
//! ```
//!
//! * Writes ([`writes`]): one write plan per write tool, learned from its recorded calls with the
//!   pipeline's rule stages ([`rules`]) and confirmed by replaying the capture through it; a
//!   served plan's tool joins the catalog and changes the live state
//!   ([`writes::apply`], shared by the confirmation and serving).

// `Refusal` is the house's one structured error; it is large, and the calls returning it are not
// hot paths (tool calls answer `StateAnswer`s, data-plane calls `DataPlaneError`s).
#![allow(clippy::result_large_err)]

pub mod absent;
pub mod answer;
pub mod answering;
pub mod argument_free;
pub mod body_query;
pub mod call;
pub mod catalog;
pub mod chosen_relations;
pub mod clock;
pub mod compound;
pub mod compound_keys;
pub mod count_views;
pub mod counters;
pub mod coverage;
pub mod created;
pub mod derive;
pub mod digests;
pub mod embedded_links;
pub mod entries;
pub mod evidence;
pub mod exact;
pub mod expansion;
pub mod families;
pub mod flat_links;
pub mod folder_compose;
pub mod fused_identity;
pub mod held;
pub mod id_forms;
pub mod id_maps;
pub mod identity_lists;
pub mod instant;
pub mod intake;
pub mod inverse;
pub mod item_uris;
pub mod joins;
pub mod link_filters;
mod link_keys;
pub mod linkage_routes;
pub mod listings;
pub mod missing;
pub mod model;
pub mod nested_query;
pub mod nesting;
pub mod observation;
pub mod operator_refusals;
pub mod page_cursor;
pub mod page_envelope;
pub mod page_past_end;
pub mod parent_items;
pub mod path_echo;
pub mod plane;
pub mod precomputed;
pub mod quantified;
pub mod query;
pub mod query_echo;
pub mod query_order;
pub mod query_refusals;
pub mod query_terms;
pub mod read;
pub mod recorded;
pub mod related_routes;
pub mod relations;
pub mod render;
pub mod request_echo;
pub mod rules;
pub mod selection;
pub mod selection_evidence;
pub mod service;
pub mod sibling_reads;
pub mod sideloads;
pub mod sliced;
pub mod sparse;
pub mod startup;
pub mod store;
pub mod tree_depths;
pub mod tree_reads;
pub mod tree_writes;
pub mod unlisted;
pub mod view;
pub mod writes;

// The write benchmark's plugin list, checked against the default pipeline.
#[cfg(test)]
#[path = "../benches/support/pipeline_plugins.rs"]
mod pipeline_plugins;

pub use derive::derive_state;
pub use evidence::{ProjectedState, project_state_evidence, seal_state};
pub use model::{STATE_VIEW_KIND, StateView};
pub use startup::{Decision, decide};
#[cfg(test)]
mod test_support;

//! `rea-manifest`: the environment manifest and replay, as a synchronous library (its only I/O is
//! reading a view's `evidence-file` source, in [`evidence`]; input loading can be held by a test
//! hook, see `rea_evidence::test_hooks`).
//!
//! * Projection: [`project_manifest`] turns capture records into a [`Manifest`] (one tool per
//!   method and path template on the primary origin; see [`projection`], [`template`],
//!   [`naming`]); [`project_manifest_evidence`] does it from capture Evidence to sealed manifest
//!   Evidence, and [`read_manifest`] reads one back ([`evidence`]).
//! * Route forms: [`route_forms`] builds what a route form stage is asked (one origin's
//!   records).
//! * View requests: [`parse_view_request`] reads `view.json` ([`view`]).
//! * The catalog ([`catalog`]), the card and discovery reservation ([`card`]), replay selection
//!   and answers ([`replay`], [`body`]).
//! * Serving: [`Environment`] holds a manifest with its capture's cited records and answers
//!   everything the replay server needs:
//!
//! ```text
//! Environment::from_evidence(&manifest_evidence, &capture_evidence) -> Result<Environment, Refusal>
//! Environment::new(&manifest, capture_evidence_id, records) -> Result<Environment, Refusal>
//! environment.name() -> &str                                  // manifest name (default served name)
//! environment.check_discovery_reservation(name) -> Result<DiscoveryCharge, Refusal>
//! environment.tools() -> &[ToolDefinition]                    // serialize each as an MCP tool
//! environment.card(name) -> EnvironmentCard                   // serialize as the card
//! environment.answer(tool, &arguments) -> Result<ReplayAnswer, ToolCallError>
//! environment.instructions() -> String                        // MCP server instructions
//! provenance_meta() -> Map                                    // `_meta` of every tool result
//! ```
//!
//! Every tool result, argument errors included, carries `_meta` = [`provenance_meta`]
//! (`{"provenance": {"untrusted_content": true, "source": "analysis_target"}}`); the MCP server
//! adds it. A [`ReplayAnswer`] serializes as the replay result (`status`, `content_type`, `body`,
//! `replay`); a [`ToolCallError`] is an invalid-arguments (or unknown-tool) error result.

// `Refusal` is the house's one structured error; it is large, and the calls returning it are not
// hot paths (replay calls return the small `ToolCallError`).
#![allow(clippy::result_large_err)]

mod below_items;
pub mod body;
pub mod card;
pub mod catalog;
pub mod depths;
pub mod display;
mod encoded_request;
pub mod environment;
pub mod evidence;
pub mod joined;
pub mod listed_depths;
pub mod manifest;
pub mod media;
mod missing_ids;
pub mod naming;
pub mod observed;
pub mod outline;
pub mod projection;
pub mod replay;
mod responses;
pub mod route_forms;
pub mod segments;
mod shape;
pub mod sibling_reads;
pub mod siblings;
mod slash_spellings;
pub mod suffix_depths;
pub mod template;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod view;

pub use body::{BodyEncoding, InterpretedBody, REPLY_BODY_LIMIT, ReplayBody};
pub use card::{DISCOVERY_RESERVATION, DiscoveryCharge, EnvironmentCard};
pub use catalog::{CATALOG_WARNING, InputSchema, ToolAnnotations, ToolDefinition};
pub use environment::{
    CATALOG_INSTRUCTIONS, Environment, UNTRUSTED_CONTENT_INSTRUCTIONS, check_parent, instructions,
};
pub use evidence::{
    Projection, VIEW_OPERATION, check_capture_evidence, project_manifest_evidence, read_manifest,
    seal_manifest,
};
pub use manifest::{
    BodyShape, ExcludedGroup, MANIFEST_VIEW_KIND, Manifest, ManifestTool, PathParameter,
    QueryParameter, RecordCounts, Unknown,
};
pub use projection::{STAGE, project_manifest};
pub use replay::{
    PROVENANCE, PROVENANCE_SOURCE, Provenance, ReplayAnswer, ReplayProvenance, ToolCallError,
    provenance_meta,
};
pub use template::{TemplateRule, TemplateRules};
pub use view::{ViewRequest, ViewSource, ViewSpec, parse_view_request};

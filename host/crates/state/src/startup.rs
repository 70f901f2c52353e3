//! Deciding, before the listener binds, whether an environment serves from the state or from
//! replay.
//!
//! In order (the first failure makes the state unavailable; the server then serves replay exactly
//! as with `--replay-only`, logging a warning with the refusal's code and message, and the stopped
//! document reports `{"served": false, "reason": "unavailable", "code", "message"}`):
//!
//! 1. the state catalog of the read tools under the served name must fit the discovery
//!    reservation (`resource_constraint`); this runs first, so nothing is derived for an oversized
//!    catalog (the catalog with the served write tools is checked again once they are known);
//! 2. the `environment-state` view is derived in-process from the already authenticated capture
//!    with the manifest's `template_rules` in the same order and the pipeline's rule stages (its
//!    own refusals apply: a capture whose reads kept no response body derives no state,
//!    `unsupported_target`; a derivation over the view's 96 MiB budget is `resource_constraint`),
//!    and must project the served manifest (same Evidence id, so it names only manifest tools);
//! 3. `data/get` must be able to write the derived state within the 32 MiB `data/add` limit
//!    (`resource_constraint`).
//!
//! Otherwise the state serves: `{"served": true, "evidence_id": "ev_…"}`.

use std::sync::Arc;

use rea_evidence::capture::capture_records;
use rea_evidence::{Evidence, Refusal};
use rea_manifest::evidence::seal_manifest;
use rea_manifest::{Environment, Manifest, TemplateRules, ToolDefinition};
use serde_json::{Value, json};

use crate::catalog::{check_state_catalog, state_tools, state_tools_with_views};
use crate::evidence::{DERIVATION_BUDGET_BYTES, project_state_evidence_within};
use crate::rules::RuleSet;
use crate::service::StateService;
use crate::store::MAX_STATE_BYTES;

/// A state ready to serve.
#[derive(Debug)]
pub struct ServedState {
    /// The state service (the live state every session and the data plane share).
    pub service: StateService,
    /// The state catalog under the served name.
    pub tools: Vec<ToolDefinition>,
    /// The stopped document's `state` member.
    pub report: Value,
}

/// Whether an environment serves from the state or from replay. (Decided once per server: the
/// size of the replay variant does not matter.)
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Decision {
    /// From the state.
    State(ServedState),
    /// Replay, because the state is unavailable.
    Replay {
        /// The replay environment, handed back.
        environment: Environment,
        /// Why (also logged as a warning).
        refusal: Refusal,
        /// The stopped document's `state` member.
        report: Value,
    },
}

/// The stopped document's `state` member for an unavailable state.
pub fn unavailable_report(refusal: &Refusal) -> Value {
    json!({
        "served": false,
        "reason": "unavailable",
        "code": refusal.code,
        "message": refusal.message,
    })
}

/// Decides how to serve a manifest (already checked against its capture by
/// [`Environment::from_evidence`]) under a served name.
pub fn decide(
    environment: Environment,
    manifest: &Manifest,
    capture: &Evidence,
    name: &str,
    rules: Arc<RuleSet>,
) -> Decision {
    decide_within(
        environment,
        manifest,
        capture,
        name,
        rules,
        DERIVATION_BUDGET_BYTES,
    )
}

/// [`decide`] with another derivation budget (bytes of state Evidence JSON; see
/// [`DERIVATION_BUDGET_BYTES`]).
pub fn decide_within(
    environment: Environment,
    manifest: &Manifest,
    capture: &Evidence,
    name: &str,
    rules: Arc<RuleSet>,
    budget: u64,
) -> Decision {
    match derive_service(&environment, manifest, capture, name, &rules, budget) {
        Ok((tools, derived)) => {
            let (state, state_id, records) = derived;
            let report = json!({ "served": true, "evidence_id": state_id });
            let service = StateService::new(state, state_id, environment, &records, rules);
            Decision::State(ServedState {
                service,
                tools,
                report,
            })
        }
        Err(refusal) => {
            tracing::warn!(
                code = refusal.code.as_str(),
                message = refusal.message.as_str(),
                "the environment state is unavailable; serving replay"
            );
            Decision::Replay {
                environment,
                report: unavailable_report(&refusal),
                refusal,
            }
        }
    }
}

type Derived = (
    crate::model::StateView,
    String,
    Vec<rea_plugin_api::contracts::capture::CaptureRecord>,
);

fn derive_service(
    environment: &Environment,
    manifest: &Manifest,
    capture: &Evidence,
    name: &str,
    state_rules: &RuleSet,
    budget: u64,
) -> Result<(Vec<ToolDefinition>, Derived), Refusal> {
    // The read tools first: an oversized catalog derives nothing.
    check_state_catalog(&state_tools(environment, manifest, &[]), name)?;
    let rules = TemplateRules::parse(&manifest.template_rules).map_err(|error| {
        Refusal::invalid_request(format!(
            "the manifest's template rules are not valid: {error}"
        ))
    })?;
    let projected = project_state_evidence_within(capture, &rules, state_rules, budget)?;
    let served_id = seal_manifest(manifest)?.id().to_owned();
    if projected.state.manifest_evidence_id != served_id {
        return Err(Refusal::invalid_request(format!(
            "the state derived from evidence {} with the manifest's rules projects manifest {}, not the served manifest {served_id}",
            capture.id(),
            projected.state.manifest_evidence_id
        )));
    }
    let state_id = projected.evidence.id().to_owned();
    let document = crate::store::LiveState::new(
        projected.state.entities.clone(),
        projected.state.documents.clone(),
    )
    .to_document(&state_id, &projected.state.types);
    let size = document.to_canonical_vec().len();
    if size > MAX_STATE_BYTES {
        return Err(Refusal::resource_constraint(format!(
            "data/get would write the derived state in {size} bytes, over the {MAX_STATE_BYTES}-byte limit data/add loads"
        )));
    }
    // Then the catalog with the served write tools.
    let tools = state_tools_with_views(
        environment,
        manifest,
        &projected.state.write_plans,
        &projected.state.views,
        state_rules.withheld(),
    );
    check_state_catalog(&tools, name)?;
    let records = capture_records(capture)?;
    Ok((tools, (projected.state, state_id, records)))
}

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
//! Step 2 takes a precomputed state instead ([`decide_from`] with [`StateSource::Stored`], read by
//! [`crate::precomputed::read_precomputed`] from a file derived from this capture and manifest by
//! this build with this pipeline): the state and the records it and the manifest cite, so nothing
//! is derived and the capture Evidence is never parsed. The caller decides which source to use and
//! logs why a precomputed state was not used. [`StateSource::Projected`] derives as step 2 does
//! from a projection of the capture made in this process (`environment-build`'s manifest): its
//! records and manifest are read instead of typed and projected again, when it is the projection
//! of this capture with the served manifest's template rules and the pipeline's route forms.
//!
//! Otherwise the state serves: `{"served": true, "evidence_id": "ev_…"}`.

use std::borrow::Cow;
use std::sync::Arc;

use rea_evidence::capture::capture_records;
use rea_evidence::{Evidence, Refusal};
use rea_manifest::evidence::sealed_manifest_id;
use rea_manifest::{Environment, Manifest, Projection, TemplateRules, ToolDefinition};
use serde_json::{Value, json};

use crate::catalog::{check_state_catalog, state_catalog_within_reservation, state_tools};
use crate::evidence::{DERIVATION_BUDGET_BYTES, derive_projected_id};
use crate::model::StateView;
use crate::precomputed::PrecomputedState;
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
    /// How many bytes `data/get` writes the derived state in.
    pub data_get_bytes: usize,
}

/// Where the served state comes from.
#[derive(Debug)]
pub enum StateSource<'a> {
    /// Derived from the capture Evidence within a budget (bytes of state Evidence JSON; see
    /// [`DERIVATION_BUDGET_BYTES`]).
    Derive {
        /// The capture Evidence (authenticated).
        capture: &'a Evidence,
        /// The derivation budget.
        budget: u64,
    },
    /// A precomputed state already checked against the served inputs
    /// ([`crate::precomputed::read_precomputed`]).
    Stored(Box<PrecomputedState>),
    /// Derived as [`StateSource::Derive`] derives it, from a projection of the capture made in
    /// this process (its records and manifest read, neither typed nor projected again) when it
    /// is the projection of that capture with the manifest's template rules and the pipeline's
    /// route forms; otherwise from the capture.
    Projected {
        /// The capture Evidence (authenticated).
        capture: &'a Evidence,
        /// A projection of it.
        projection: &'a Projection,
        /// The derivation budget.
        budget: u64,
    },
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
    decide_from(
        environment,
        manifest,
        StateSource::Derive { capture, budget },
        name,
        rules,
    )
}

/// [`decide_within`] from a state source: derived from the capture, or precomputed.
pub fn decide_from(
    environment: Environment,
    manifest: &Manifest,
    source: StateSource<'_>,
    name: &str,
    rules: Arc<RuleSet>,
) -> Decision {
    let sources = Sources {
        environment: &environment,
        manifest,
        name,
    };
    match serve_state(&sources, &rules, source) {
        Ok(ready) => {
            let Ready {
                tools,
                state,
                state_id,
                data_get_bytes,
                records,
            } = ready;
            let report = json!({ "served": true, "evidence_id": state_id });
            let service = StateService::new(state, state_id, environment, records, rules);
            Decision::State(ServedState {
                service,
                tools,
                report,
                data_get_bytes,
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

/// What a state is served from.
struct Sources<'a> {
    environment: &'a Environment,
    manifest: &'a Manifest,
    name: &'a str,
}

/// A state ready to serve: its catalog, the state, its id, its `data/get` size, the records.
struct Ready<'a> {
    tools: Vec<ToolDefinition>,
    state: StateView,
    state_id: String,
    data_get_bytes: usize,
    records: Cow<'a, [rea_plugin_api::contracts::capture::CaptureRecord]>,
}

fn serve_state<'a>(
    sources: &Sources<'_>,
    state_rules: &RuleSet,
    source: StateSource<'a>,
) -> Result<Ready<'a>, Refusal> {
    let Sources {
        environment,
        manifest,
        name,
    } = sources;
    // The read tools first: an oversized catalog derives nothing.
    check_state_catalog(&state_tools(environment, manifest, &[]), name)?;
    let (state, state_id, data_get_bytes, records) = match source {
        StateSource::Stored(stored) => {
            tracing::info!(
                evidence_id = stored.state_evidence_id.as_str(),
                "the state is read from the precomputed file"
            );
            let PrecomputedState {
                records,
                state,
                state_evidence_id,
                data_get_bytes,
                ..
            } = *stored;
            let size = usize::try_from(data_get_bytes).unwrap_or(usize::MAX);
            (state, state_evidence_id, size, Cow::Owned(records))
        }
        StateSource::Derive { capture, budget } => derive(
            manifest,
            &Derivation {
                capture,
                projection: None,
                budget,
            },
            state_rules,
        )?,
        StateSource::Projected {
            capture,
            projection,
            budget,
        } => derive(
            manifest,
            &Derivation {
                capture,
                projection: Some(projection),
                budget,
            },
            state_rules,
        )?,
    };
    let records = joined_records(manifest, records);
    if data_get_bytes > MAX_STATE_BYTES {
        return Err(Refusal::resource_constraint(format!(
            "data/get would write the derived state in {data_get_bytes} bytes, over the {MAX_STATE_BYTES}-byte limit data/add loads"
        )));
    }
    // Then the catalog with the served write tools.
    let tools = state_catalog_within_reservation(
        environment,
        manifest,
        &state.write_plans,
        (&state.views, crate::catalog::OfferedRules::of(&state)),
        (state_rules.withheld(), name),
    )?;
    Ok(Ready {
        tools,
        state,
        state_id,
        data_get_bytes,
        records,
    })
}

/// The records as the manifest reads them: ids over two segments joined
/// (`rea_manifest::joined`; as given when the manifest joins none).
fn joined_records<'r>(
    manifest: &Manifest,
    records: Cow<'r, [rea_plugin_api::contracts::capture::CaptureRecord]>,
) -> Cow<'r, [rea_plugin_api::contracts::capture::CaptureRecord]> {
    if manifest.joined_segments.is_empty() {
        return records;
    }
    let mut joined = records.into_owned();
    let _ = rea_manifest::joined::rewrite_records(&mut joined, &manifest.joined_segments);
    Cow::Owned(joined)
}

/// What a state is derived from: the capture, a projection of it made in this process if any, the
/// budget.
struct Derivation<'a> {
    capture: &'a Evidence,
    projection: Option<&'a Projection>,
    budget: u64,
}

/// The state, its id, its `data/get` size and the records it serves with.
type Derived<'a> = (
    StateView,
    String,
    usize,
    Cow<'a, [rea_plugin_api::contracts::capture::CaptureRecord]>,
);

/// Derives the state of the served manifest: the state, its id, its `data/get` size, the records.
/// A projection of the capture with the served manifest's template rules and the pipeline's route
/// forms is derived from as it is (its records kept); the capture is projected otherwise (and its
/// records typed once the projection is dropped).
fn derive<'a>(
    manifest: &Manifest,
    derivation: &Derivation<'a>,
    state_rules: &RuleSet,
) -> Result<Derived<'a>, Refusal> {
    let Derivation {
        capture,
        projection,
        budget,
    } = *derivation;
    let served_id = sealed_manifest_id(manifest)?;
    let rules = TemplateRules::parse(&manifest.template_rules).map_err(|error| {
        Refusal::invalid_request(format!(
            "the manifest's template rules are not valid: {error}"
        ))
    })?;
    let projection = projection
        .filter(|projection| projection.is_of(capture.id(), &state_rules.templating(&rules)));
    // Only the state Evidence's id is needed: it is hashed from the state, never built.
    let (state, state_id) = match projection {
        Some(projection) => derive_projected_id(projection, state_rules, budget)?,
        None => {
            let projection = Projection::project(capture, &state_rules.templating(&rules))?;
            derive_projected_id(&projection, state_rules, budget)?
        }
    };
    if state.manifest_evidence_id != served_id {
        return Err(Refusal::invalid_request(format!(
            "the state derived from evidence {} with the manifest's rules projects manifest {}, not the served manifest {served_id}",
            capture.id(),
            state.manifest_evidence_id
        )));
    }
    // The `data/get` size is counted entity by entity: no second copy of the state is held.
    let size = crate::store::initial_report_bytes(
        &state_id,
        &state.types,
        &state.entities,
        &state.documents,
    );
    let records = match projection {
        Some(projection) => Cow::Borrowed(projection.records()),
        None => Cow::Owned(capture_records(capture)?),
    };
    Ok((state, state_id, size, records))
}

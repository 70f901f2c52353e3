//! Before the listener binds: the state's decision ([`rea_state::startup::decide`]: serve the
//! state, or replay because the state is unavailable) as the backend and data plane to serve.

use std::sync::Arc;

use rea_evidence::{Evidence, Refusal};
use rea_manifest::{Environment, Manifest, Projection};
use rea_state::evidence::DERIVATION_BUDGET_BYTES;
use rea_state::precomputed::PrecomputedState;
use rea_state::rules::RuleSet;
use rea_state::startup::{Decision, ServedState, StateSource, decide_from};
use serde_json::Value;

use crate::backend::StateBackend;
use crate::fetch::FetchOptions;
use crate::plane::StatePlane;

/// What an environment serves. (Built once per server: the size of the replay variant does not
/// matter.)
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Serving {
    /// From the state.
    State {
        /// The MCP backend.
        backend: Arc<StateBackend>,
        /// The data plane (sharing the backend's live state).
        plane: Arc<StatePlane>,
        /// The stopped document's `state` member.
        report: Value,
        /// How many bytes `data/get` writes the derived state in.
        data_get_bytes: usize,
    },
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

/// Decides how to serve a manifest (already checked against its capture by
/// [`Environment::from_evidence`]) under a served name.
pub fn prepare(
    environment: Environment,
    manifest: &Manifest,
    capture: &Evidence,
    name: &str,
    rules: Arc<RuleSet>,
) -> Serving {
    prepare_with(
        environment,
        manifest,
        capture,
        name,
        rules,
        FetchOptions::default(),
    )
}

/// [`prepare`] with explicit download options.
pub fn prepare_with(
    environment: Environment,
    manifest: &Manifest,
    capture: &Evidence,
    name: &str,
    rules: Arc<RuleSet>,
    options: FetchOptions,
) -> Serving {
    prepare_within(
        environment,
        manifest,
        capture,
        name,
        rules,
        options,
        DERIVATION_BUDGET_BYTES,
    )
}

/// [`prepare_with`] with another derivation budget (bytes of state Evidence JSON; see
/// [`DERIVATION_BUDGET_BYTES`]).
pub fn prepare_within(
    environment: Environment,
    manifest: &Manifest,
    capture: &Evidence,
    name: &str,
    rules: Arc<RuleSet>,
    options: FetchOptions,
    budget: u64,
) -> Serving {
    let source = StateSource::Derive { capture, budget };
    serving(
        decide_from(environment, manifest, source, name, rules),
        name,
        options,
    )
}

/// [`prepare`] deriving the state from a projection of the capture made in this process (its
/// records and manifest read, not typed and projected again, when it is the projection the state
/// makes: see [`rea_state::startup::StateSource::Projected`]).
pub fn prepare_projected(
    environment: Environment,
    manifest: &Manifest,
    capture: &Evidence,
    projection: &Projection,
    name: &str,
    rules: Arc<RuleSet>,
) -> Serving {
    let source = StateSource::Projected {
        capture,
        projection,
        budget: DERIVATION_BUDGET_BYTES,
    };
    serving(
        decide_from(environment, manifest, source, name, rules),
        name,
        FetchOptions::default(),
    )
}

/// [`prepare_with`] from a precomputed state already checked against the served inputs
/// ([`rea_state::precomputed::read_precomputed`]): nothing is derived and the capture Evidence is
/// not needed (see [`rea_state::startup::decide_from`]).
pub fn prepare_precomputed(
    environment: Environment,
    manifest: &Manifest,
    name: &str,
    rules: Arc<RuleSet>,
    options: FetchOptions,
    stored: PrecomputedState,
) -> Serving {
    let source = StateSource::Stored(Box::new(stored));
    serving(
        decide_from(environment, manifest, source, name, rules),
        name,
        options,
    )
}

fn serving(decision: Decision, name: &str, options: FetchOptions) -> Serving {
    match decision {
        Decision::State(ServedState {
            service,
            tools,
            report,
            data_get_bytes,
        }) => {
            let service = Arc::new(service);
            let backend = Arc::new(StateBackend::new(Arc::clone(&service), &tools, name));
            let plane = Arc::new(StatePlane::with_options(service, options));
            Serving::State {
                backend,
                plane,
                report,
                data_get_bytes,
            }
        }
        Decision::Replay {
            environment,
            refusal,
            report,
        } => Serving::Replay {
            environment,
            refusal,
            report,
        },
    }
}

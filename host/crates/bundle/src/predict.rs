//! Predicting what a bundle serves, by preparing it exactly as its server will at startup.
//!
//! [`predict`] hands the authenticated pair to [`rea_backends::prepare`] under the bundle's name, the
//! function `environment-serve` decides with: the state serves when it is available, replay
//! otherwise (the refusal that made the state unavailable is kept for the README). As the server
//! does before binding, the replay catalog under the name must first fit the discovery
//! reservation (`resource_constraint` otherwise); a state catalog that does not fit makes the
//! state unavailable.
//!
//! The verifier's probe is the first served `GET` tool without path parameters whose answer to no
//! arguments is not an error. Each candidate is called through [`rea_serve::mcp::McpSurface::call`],
//! the function the server's `tools/call` runs (the argument check against the input schema, then
//! the backend's answer), and the expected status is the `status` member of that answer's text
//! (`None` when the recording has none: an unknown status stays unknown).
//!
//! Replay is put behind the server's [`ToolBackend`] boundary by [`ReplayBackend`], the adapter
//! `environment-serve` uses too.

use std::sync::Arc;

use rea_backends::Serving;
use rea_backends::backend::StateBackend;
use rea_backends::replay::ReplayBackend;
use rea_evidence::capture::capture_records_of;
use rea_evidence::{Evidence, Refusal};
use rea_manifest::{Environment, Manifest, Projection};
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_serve::ToolBackend;
use rea_serve::mcp::McpSurface;
use rea_state::StateView;
use rea_state::precomputed::{
    KeptRecords, PrecomputedFile, Provenance, StateFacts, StateKey, stored_ordinals,
};
use rea_state::rules::RuleSet;
use rea_state::service::StateService;
use serde_json::Value;

/// What a bundle serves under its name.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The served tools' names, in catalog order.
    pub tools: Vec<String>,
    /// The tool `verify.py` calls and the status it expects; `None` when no tool qualifies.
    pub probe: Option<VerifyProbe>,
    /// The stopped document's `state` member (`{"served": true, "evidence_id"}` or
    /// `{"served": false, "reason": "unavailable", "code", "message"}`).
    pub state: Value,
    /// Why the state is unavailable, when replay serves.
    pub unavailable: Option<Refusal>,
    /// The state's coverage (read views and write plans summarized), `None` when replay serves.
    pub coverage: Option<Value>,
    /// The derived state as the bundle's `state.json` ([`rea_state::precomputed`]), when the
    /// state serves and a provenance was given.
    pub precomputed: Option<Arc<PrecomputedFile>>,
    /// What the state holds, for progress: entities, entity types, documents, write plans and
    /// served write plans (empty when replay serves).
    pub counts: Vec<(&'static str, u64)>,
}

impl Prediction {
    /// How many tools the bundle serves.
    pub fn tool_count(&self) -> usize {
        self.tools.len()
    }

    /// Whether the bundle serves from the state.
    pub fn serves_state(&self) -> bool {
        self.unavailable.is_none()
    }

    /// The derived state's Evidence id, when the state serves.
    pub fn state_evidence_id(&self) -> Option<&str> {
        self.state.get("evidence_id").and_then(Value::as_str)
    }
}

/// The tool `verify.py` calls with no arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyProbe {
    /// The tool's name.
    pub tool: String,
    /// The `status` of its answer (`None`: unknown).
    pub status: Option<u16>,
}

/// What a bundle's precomputed state is keyed with: the code and pipeline, and the SHA-256 of the
/// capture Evidence file's bytes the bundle holds.
#[derive(Debug, Clone, Copy)]
pub struct Precompute<'a> {
    /// The code and the pipeline.
    pub provenance: &'a Provenance,
    /// The SHA-256 (hex) of the bundle's `evidence.json`.
    pub evidence_sha256: &'a str,
}

/// A projection of the capture made in this process (the manifest's own, in `environment-build`),
/// and whether its whole list of records is handed back once the state is derived (a build
/// writing the capture Evidence again from its records, [`rea_evidence::rewrite`]).
#[derive(Debug)]
pub struct Projected {
    /// The projection.
    pub projection: Projection,
    /// Hand its records back (shared with the precomputed state's kept ones).
    pub keep_records: bool,
}

/// The capture's records a prediction hands back ([`Projected::keep_records`]).
pub type CaptureRecords = Option<Arc<Vec<CaptureRecord>>>;

/// Prepares the environment under `name` as its server will and predicts what it serves; with a
/// [`Precompute`], also writes the derived state as a precomputed state keyed with it. A
/// projection of the capture made in this process is derived from instead of projecting the
/// capture again ([`rea_backends::prepare_projected`]), and its records are the ones the
/// precomputed state keeps: moved out of it, not copied (the rest of it is dropped once the state
/// is derived, and the records too unless they are handed back).
///
/// Refused (`resource_constraint`) when the served catalog exceeds the discovery reservation.
/// Must not be called from within an async runtime (the tool calls run on a runtime of its own).
pub fn predict(
    environment: Environment,
    manifest: &Manifest,
    capture: &Evidence,
    projected: Option<Projected>,
    name: &str,
    rules: Arc<RuleSet>,
    precompute: Option<Precompute<'_>>,
) -> Result<(Prediction, CaptureRecords), Refusal> {
    // As the server: the replay catalog under the served name first, then the state.
    environment.check_discovery_reservation(name)?;
    let keep_records = projected
        .as_ref()
        .is_some_and(|projected| projected.keep_records);
    let projection = projected.map(|projected| projected.projection);
    let serving = match &projection {
        Some(projection) => {
            rea_backends::prepare_projected(environment, manifest, capture, projection, name, rules)
        }
        None => rea_backends::prepare(environment, manifest, capture, name, rules),
    };
    let Prepared {
        backend,
        state,
        unavailable,
        coverage,
        pending,
        counts,
        records,
    } = match serving {
        Serving::State {
            backend,
            plane,
            report,
            data_get_bytes,
        } => {
            // The data plane shares the service: dropped now, so the derived state is taken from
            // the service once the backend is dropped too, not copied ([`Pending::prepare`]).
            drop(plane);
            let stored = Stored {
                manifest,
                capture,
                projection,
                keep_records,
                data_get_bytes,
            };
            state_prepared(backend, report, stored, precompute)?
        }
        Serving::Replay {
            environment,
            refusal,
            report,
        } => Prepared::replay(
            ReplayBackend::new(environment, name),
            (refusal, report),
            handed_back(projection, keep_records),
        ),
    };
    rea_serve::check_card_agrees(backend.as_ref()).map_err(|error| error.refusal())?;
    let tools: Vec<String> = backend
        .tools()
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    let probe = find_probe(Arc::clone(&backend), manifest)?;
    drop(backend);
    let precomputed = pending.map(Pending::prepare).transpose()?.map(Arc::new);
    let prediction = Prediction {
        tools,
        probe,
        state,
        unavailable,
        coverage,
        precomputed,
        counts,
    };
    Ok((prediction, records))
}

/// A projection's records when they are to be handed back (the rest of it dropped).
fn handed_back(projection: Option<Projection>, keep_records: bool) -> CaptureRecords {
    let projection = projection.filter(|_| keep_records)?;
    Some(Arc::new(projection.into_parts().1))
}

/// What the server prepared, as the prediction reads it.
struct Prepared {
    backend: Arc<dyn ToolBackend>,
    /// The state report (`state` of the build report).
    state: Value,
    /// Why the state does not serve (the replay fallback), if it does not.
    unavailable: Option<Refusal>,
    coverage: Option<Value>,
    /// The precomputed state to write, when asked for.
    pending: Option<Pending>,
    counts: Vec<(&'static str, u64)>,
    /// The capture's records handed back.
    records: CaptureRecords,
}

impl Prepared {
    /// Replay serves: why the state does not, and its report.
    fn replay(
        backend: ReplayBackend,
        (refusal, report): (Refusal, Value),
        records: CaptureRecords,
    ) -> Self {
        Prepared {
            backend: Arc::new(backend),
            state: report,
            unavailable: Some(refusal),
            coverage: None,
            pending: None,
            counts: Vec::new(),
            records,
        }
    }
}

/// The state backend's coverage, counts and (when asked for) the precomputed state to write; the
/// service is dropped before returning so only the backend still holds it.
fn state_prepared(
    backend: Arc<StateBackend>,
    report: Value,
    stored: Stored<'_>,
    precompute: Option<Precompute<'_>>,
) -> Result<Prepared, Refusal> {
    let service = Arc::clone(backend.service());
    let derived = service.derived();
    let coverage = Some(rea_state::coverage::summary(derived));
    let (pending, records) = match precompute {
        Some(precompute) => {
            let (pending, records) = stored.pending(&service, precompute)?;
            (Some(pending), records)
        }
        None => (None, handed_back(stored.projection, stored.keep_records)),
    };
    let counts = state_counts(derived);
    drop(service);
    Ok(Prepared {
        backend,
        state: report,
        unavailable: None,
        coverage,
        pending,
        counts,
        records,
    })
}

/// What a precomputed state is written from, besides the derived state and its key.
struct Stored<'a> {
    manifest: &'a Manifest,
    capture: &'a Evidence,
    /// A projection of the capture made in this process: its records are the ones kept (moved).
    projection: Option<Projection>,
    /// Hand the projection's records back, the kept ones shared with them.
    keep_records: bool,
    data_get_bytes: usize,
}

/// A precomputed state to prepare once the prediction's server is dropped: its service (the
/// derived state is taken from it then, not copied, when nothing else holds it), the records it
/// keeps (their bodies shared with the capture's) and its facts.
struct Pending {
    service: Arc<StateService>,
    records: KeptRecords,
    key: StateKey,
    state_evidence_id: String,
    data_get_bytes: usize,
    evidence_sha256: String,
}

impl Stored<'_> {
    /// What the derived state's file keeps: the records the state and the manifest cite, keyed
    /// with `precompute`, and the projection's records when they are handed back. A projection's
    /// records are moved (the ones not kept dropped unless handed back, then shared), never
    /// copied: two lists of the capture's records are never held at once.
    fn pending(
        self,
        service: &Arc<StateService>,
        precompute: Precompute<'_>,
    ) -> Result<(Pending, CaptureRecords), Refusal> {
        let derived = service.derived();
        let key = StateKey::new(
            self.capture.id(),
            &derived.manifest_evidence_id,
            precompute.provenance,
        );
        let wanted = stored_ordinals(derived, self.manifest);
        let projection = self
            .projection
            .filter(|projection| projection.capture_id() == self.capture.id());
        let (records, handed) = match projection {
            Some(projection) if self.keep_records => {
                let all = Arc::new(projection.into_parts().1);
                (KeptRecords::wanted(Arc::clone(&all), &wanted), Some(all))
            }
            Some(projection) => (KeptRecords::all(kept_of(projection, &wanted)), None),
            None => (
                KeptRecords::all(capture_records_of(self.capture, &wanted)?),
                None,
            ),
        };
        let pending = Pending {
            service: Arc::clone(service),
            records,
            key,
            state_evidence_id: service.state_evidence_id().to_owned(),
            data_get_bytes: self.data_get_bytes,
            evidence_sha256: precompute.evidence_sha256.to_owned(),
        };
        Ok((pending, handed))
    }
}

/// A projection's records whose ordinals are `wanted` (the rest dropped).
fn kept_of(projection: Projection, wanted: &std::collections::BTreeSet<u64>) -> Vec<CaptureRecord> {
    let (_, records) = projection.into_parts();
    let mut kept: Vec<_> = records
        .into_iter()
        .filter(|record| wanted.contains(&record.ordinal))
        .collect();
    kept.shrink_to_fit();
    kept
}

impl Pending {
    /// The derived state's file.
    fn prepare(self) -> Result<PrecomputedFile, Refusal> {
        let facts = StateFacts {
            state_evidence_id: &self.state_evidence_id,
            data_get_bytes: self.data_get_bytes,
            key: &self.key,
            evidence_sha256: &self.evidence_sha256,
        };
        let state = Arc::try_unwrap(self.service)
            .map(StateService::into_derived)
            .unwrap_or_else(|service| service.derived().clone());
        PrecomputedFile::prepare(state, self.records, &facts)
    }
}
/// What the state holds, for progress: entities, entity types, documents, write plans and
/// served write plans.
fn state_counts(derived: &StateView) -> Vec<(&'static str, u64)> {
    let served = derived
        .write_plans
        .iter()
        .filter(|plan| plan.served)
        .count();
    vec![
        ("entities", derived.entities.len() as u64),
        ("types", derived.types.len() as u64),
        ("documents", derived.documents.len() as u64),
        ("write_plans", derived.write_plans.len() as u64),
        ("served_writes", served as u64),
    ]
}

fn find_probe(
    backend: Arc<dyn ToolBackend>,
    manifest: &Manifest,
) -> Result<Option<VerifyProbe>, Refusal> {
    let candidates: Vec<String> = backend
        .tools()
        .iter()
        .filter(|tool| {
            manifest.tool(&tool.name).is_some_and(|declared| {
                declared.method.eq_ignore_ascii_case("GET") && declared.path_parameters.is_empty()
            })
        })
        .map(|tool| tool.name.clone())
        .collect();
    if candidates.is_empty() {
        return Ok(None);
    }
    // The answers are computed in place (no I/O, no timers): a bare runtime opens no descriptor,
    // where an I/O driver's signal pipe would panic inside tokio when descriptors run out.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|error| Refusal::internal(format!("cannot start a runtime: {error}")))?;
    let surface = McpSurface::new(backend);
    for tool in candidates {
        let result = runtime
            .block_on(surface.call(&tool, None))
            .map_err(|error| Refusal::internal(format!("tools/call {tool} failed: {error:?}")))?;
        let wire = serde_json::to_value(&result).map_err(|error| {
            Refusal::internal(format!("the result of {tool} did not serialize: {error}"))
        })?;
        if wire.get("isError").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let text = wire
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let answer: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let status = answer
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|status| u16::try_from(status).ok());
        return Ok(Some(VerifyProbe { tool, status }));
    }
    Ok(None)
}

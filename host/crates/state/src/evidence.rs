//! State Evidence: the [`StateView`] sealed as analysis-view Evidence, and projecting it from
//! capture Evidence.
//!
//! The document is the state's members at the top level (see [`crate::model`]) plus `view`
//! (`environment-state`), `schema_version` and `parameters`
//! (`{"view": {"kind": "environment-state", "template_rules": […]}}`), sealed under the analysis
//! views' operation `inspect_analysis_view`. Its `parent_evidence_id` is the capture's id. Like the
//! manifest, it depends only on the capture and the rules, so `inspect-analysis-view` and
//! `environment-serve` seal the same id for the same capture and rules.

use rea_evidence::{Evidence, Refusal};
use rea_manifest::evidence::{VIEW_FILE_MAX_BYTES, VIEW_OPERATION, sealed_manifest_id};
use rea_manifest::{Manifest, Projection, STAGE, TemplateRules};
use serde::Serialize;

use crate::derive::derive_state;
use crate::model::{STATE_SCHEMA_VERSION, STATE_VIEW_KIND, StateView};
use crate::rules::RuleSet;

#[derive(Serialize)]
struct StateParameters {
    view: ViewParameters,
}

#[derive(Serialize)]
struct ViewParameters {
    kind: &'static str,
    template_rules: Vec<String>,
}

#[derive(Serialize)]
struct StateDocument<'a> {
    #[serde(flatten)]
    state: &'a StateView,
    parameters: StateParameters,
    schema_version: u64,
    view: &'static str,
}

/// Seals a state as Evidence.
pub fn seal_state(state: &StateView) -> Result<Evidence, Refusal> {
    Evidence::seal_value(VIEW_OPERATION, &state_document(state))
        .map_err(|refusal| refusal.in_stage(STAGE))
}

/// The id [`seal_state`] gives a state, hashed member by member and item by item
/// ([`rea_evidence::streamed::sealed_id_of`]): the state's JSON tree is never built.
pub fn sealed_state_id(state: &StateView) -> Result<String, Refusal> {
    rea_evidence::streamed::sealed_id_of(VIEW_OPERATION, &state_document(state))
        .map_err(|refusal| refusal.in_stage(STAGE))
}

/// The seed served writes' generated values derive from: the id [`sealed_state_id`] gives the
/// state with `parent_evidence_id`, `manifest_evidence_id` and `draw_seed` left empty. Those two
/// ids seal the capture file's path (the capture Evidence names it); the rest of the state is
/// the recording's content and the rules, so the same recording and pipeline draw the same
/// values wherever the file is stored.
pub fn draw_seed(state: &mut StateView) -> Result<String, Refusal> {
    let parent = std::mem::take(&mut state.parent_evidence_id);
    let manifest = std::mem::take(&mut state.manifest_evidence_id);
    let earlier = std::mem::take(&mut state.draw_seed);
    let seed = sealed_state_id(state);
    state.parent_evidence_id = parent;
    state.manifest_evidence_id = manifest;
    state.draw_seed = earlier;
    seed
}

fn state_document(state: &StateView) -> StateDocument<'_> {
    StateDocument {
        state,
        parameters: StateParameters {
            view: ViewParameters {
                kind: STATE_VIEW_KIND,
                template_rules: state.template_rules.clone(),
            },
        },
        schema_version: STATE_SCHEMA_VERSION,
        view: STATE_VIEW_KIND,
    }
}

/// A state and its Evidence, with the manifest projected on the way.
#[derive(Debug)]
pub struct ProjectedState {
    /// The manifest the same capture and rules project.
    pub manifest: Manifest,
    /// The derived state.
    pub state: StateView,
    /// The sealed state Evidence.
    pub evidence: Evidence,
}

/// The view's budget, which bounds the derivation: the state Evidence it produces is at most
/// this many bytes of JSON (the view's 96 MiB input budget, [`VIEW_FILE_MAX_BYTES`]). The
/// capture it reads is already bounded (an Evidence file is at most 64 MiB), but a state can
/// outgrow its capture (list lines citing every member they show), so the output is measured,
/// as it is written and before it is sealed.
pub const DERIVATION_BUDGET_BYTES: u64 = VIEW_FILE_MAX_BYTES;

/// Counts the bytes written through it, failing once they pass the budget.
struct BudgetWriter {
    written: u64,
    budget: u64,
}

impl std::io::Write for BudgetWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.written += bytes.len() as u64;
        if self.written > self.budget {
            return Err(std::io::Error::other("over the derivation budget"));
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Refuses a state whose Evidence would take more than `budget` bytes of JSON.
fn check_budget(state: &StateView, budget: u64) -> Result<(), Refusal> {
    let mut writer = BudgetWriter { written: 0, budget };
    if serde_json::to_writer(&mut writer, state).is_err() {
        return Err(Refusal::resource_constraint(format!(
            "deriving the environment state went over the view's {budget}-byte budget"
        ))
        .in_stage(STAGE));
    }
    Ok(())
}

/// Projects the `environment-state` view of capture Evidence with template rules: the manifest
/// first (the same projection `environment-manifest` makes, with the state rules' pipeline's
/// route forms: [`RuleSet::templating`]), then the state, with the write plans
/// the state rules explain. The capture is checked as for the manifest view (a capture
/// operation, no declared sensitive values), and the derivation is bounded by the view's budget
/// ([`DERIVATION_BUDGET_BYTES`]).
pub fn project_state_evidence(
    capture: &Evidence,
    rules: &TemplateRules,
    state_rules: &RuleSet,
) -> Result<ProjectedState, Refusal> {
    project_state_evidence_within(capture, rules, state_rules, DERIVATION_BUDGET_BYTES)
}

/// [`project_state_evidence`] within another budget (bytes of state Evidence JSON).
pub fn project_state_evidence_within(
    capture: &Evidence,
    rules: &TemplateRules,
    state_rules: &RuleSet,
    budget: u64,
) -> Result<ProjectedState, Refusal> {
    let projection = Projection::project(capture, &state_rules.templating(rules))?;
    let (state, evidence) = derive_projected(&projection, state_rules, budget)?;
    let (manifest, _) = projection.into_parts();
    Ok(ProjectedState {
        manifest,
        state,
        evidence,
    })
}

/// The state and its Evidence of a manifest projected in this process (the manifest and the
/// records [`project_state_evidence_within`] would project and type), within a budget.
pub fn derive_projected(
    projection: &Projection,
    state_rules: &RuleSet,
    budget: u64,
) -> Result<(StateView, Evidence), Refusal> {
    let state = derive_within(projection, state_rules, budget)?;
    let evidence = seal_state(&state)?;
    Ok((state, evidence))
}

/// [`derive_projected`] with the state Evidence's id only ([`sealed_state_id`]: the Evidence is
/// never built).
pub fn derive_projected_id(
    projection: &Projection,
    state_rules: &RuleSet,
    budget: u64,
) -> Result<(StateView, String), Refusal> {
    let state = derive_within(projection, state_rules, budget)?;
    let id = sealed_state_id(&state)?;
    Ok((state, id))
}

fn derive_within(
    projection: &Projection,
    state_rules: &RuleSet,
    budget: u64,
) -> Result<StateView, Refusal> {
    let manifest = projection.manifest();
    let manifest_evidence_id = sealed_manifest_id(manifest)?;
    let mut state = derive_state(
        manifest,
        &manifest_evidence_id,
        projection.records(),
        state_rules,
    )?;
    state.draw_seed = draw_seed(&mut state)?;
    check_budget(&state, budget)?;
    Ok(state)
}

//! Deriving the state from a projection made in this process (`StateSource::Projected`, what
//! `environment-build` does with its manifest's projection, issue 17): on every shared and corpus
//! capture the served state, its Evidence id, its `data/get` size, the served catalog and the
//! precomputed state's bytes (records included) are those deriving from the capture gives; a
//! projection with other rules is not used (the capture is projected again, the same state).

use crate::state_precomputed::every_capture;
use crate::state_support;

use std::sync::Arc;

use rea_evidence::Evidence;
use rea_evidence::capture::capture_records_of;
use rea_manifest::{Environment, Projection, TemplateRules, seal_manifest};
use rea_state::evidence::DERIVATION_BUDGET_BYTES;
use rea_state::precomputed::{
    Provenance, StateFacts, StateKey, stored_ordinals, write_precomputed,
};
use rea_state::rules::RuleSet;
use rea_state::startup::{Decision, StateSource, decide_from};

/// What a served state is compared by: its id, `data/get` size, catalog and precomputed bytes.
fn served(
    capture: &Evidence,
    projection: &Projection,
    source: StateSource<'_>,
    rules: &Arc<RuleSet>,
) -> (String, usize, Vec<String>, Vec<u8>) {
    let manifest = projection.manifest();
    let manifest_evidence = seal_manifest(manifest).expect("sealed");
    let environment = Environment::from_evidence(&manifest_evidence, capture).expect("replay");
    let Decision::State(state) =
        decide_from(environment, manifest, source, "env", Arc::clone(rules))
    else {
        panic!("{}: the state is unavailable", capture.id());
    };
    let derived = state.service.derived();
    let records = capture_records_of(capture, &stored_ordinals(derived, manifest)).unwrap();
    let provenance = Provenance {
        deriver: "test".to_owned(),
        pipeline: "test".to_owned(),
    };
    let key = StateKey::new(capture.id(), manifest_evidence.id(), &provenance);
    let facts = StateFacts {
        state_evidence_id: state.service.state_evidence_id(),
        data_get_bytes: state.data_get_bytes,
        key: &key,
        evidence_sha256: "e0",
    };
    let bytes = write_precomputed(derived, &records, &facts).unwrap();
    let tools = state.tools.iter().map(|tool| tool.name.clone()).collect();
    (
        state.service.state_evidence_id().to_owned(),
        state.data_get_bytes,
        tools,
        bytes,
    )
}

#[test]
fn a_state_derived_from_the_build_projection_is_the_one_derived_from_the_capture() {
    let rules = state_support::state_rules();
    for path in every_capture() {
        let capture = state_support::capture_file(&path);
        let projection = Projection::project(&capture, &state_support::rules())
            .unwrap_or_else(|refusal| panic!("{}: {refusal:?}", path.display()));
        let derive = StateSource::Derive {
            capture: &capture,
            budget: DERIVATION_BUDGET_BYTES,
        };
        let expected = served(&capture, &projection, derive, &rules);
        let projected = StateSource::Projected {
            capture: &capture,
            projection: &projection,
            budget: DERIVATION_BUDGET_BYTES,
        };
        let from_projection = served(&capture, &projection, projected, &rules);
        assert_eq!(from_projection.0, expected.0, "{}", path.display());
        assert_eq!(from_projection.1, expected.1, "{}", path.display());
        assert_eq!(from_projection.2, expected.2, "{}", path.display());
        assert!(
            from_projection.3 == expected.3,
            "{}: the precomputed state differs",
            path.display()
        );
    }
}

#[test]
fn a_projection_with_other_rules_is_not_derived_from() {
    let rules = state_support::state_rules();
    let path = crate::bundle_support::har("json-server");
    let capture = state_support::capture_file(&path);
    let served_projection = Projection::project(&capture, &state_support::rules()).unwrap();
    // Format rules only, without the pipeline's route forms: not the served manifest's rules.
    let other = Projection::project(&capture, &TemplateRules::none()).unwrap();
    assert!(!other.is_of(capture.id(), &state_support::rules()));
    let derive = StateSource::Derive {
        capture: &capture,
        budget: DERIVATION_BUDGET_BYTES,
    };
    let expected = served(&capture, &served_projection, derive, &rules);
    let projected = StateSource::Projected {
        capture: &capture,
        projection: &other,
        budget: DERIVATION_BUDGET_BYTES,
    };
    let refused = served(&capture, &served_projection, projected, &rules);
    assert_eq!(refused.0, expected.0);
    assert!(refused.3 == expected.3, "the precomputed state differs");
}

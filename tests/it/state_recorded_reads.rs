//! Reads answering from their recordings that the state still answers in part.
//!
//! Absent entities: a read tool whose path is a held type's collection and one id segment, whose
//! every checked read named an entity the state holds there and which recorded a `404`, answers
//! that `404` naming the call's id for an id the live collection lacks, and its recordings for a
//! held one. Sliced members: a query parameter whose every checked read equals the read of its
//! line without it but for one member array, held from the parameter's value on, answers any
//! such call from that line's checked read, the member sliced.
//!
//! One recorded application shows each: optuna-dashboard's study detail (`/api/studies/{id}`,
//! which names its study by path only, so it is no item view) under the study list's
//! `study_id`s, and its `after` (`trials[after:]` in the application's source). The other
//! recorded reads with a recorded `404` are item views (their missing answers are theirs) or lie
//! under no held collection (jupyter's sessions and kernels, never listed before a write: they
//! answer as `state_created_reads` says); no other recorded read's parameter slices a member.

use serde_json::{Map, Value, json};

use crate::state_support::{Served, arguments_of, recorded_answer, serve_corpus_app};

const DETAIL_TOOL: &str = "get_studies_by_version";

/// The detail tool's arguments naming a study id.
fn study(served: &Served, id: &str) -> Map<String, Value> {
    crate::state_support::id_arguments(served, DETAIL_TOOL, id)
}

#[test]
fn optuna_answers_a_missing_study_as_the_build_showed_it() {
    let served = serve_corpus_app("optuna_dashboard");
    let absent = served
        .state()
        .absent_answers
        .iter()
        .find(|absent| absent.tool == DETAIL_TOOL)
        .expect("the study detail learns its missing answer");
    assert_eq!(absent.entity_type, "/api/studies");
    let missing = &served.records[absent.missing_ordinal as usize];
    assert_eq!(missing.response.status, 404);
    // Every checked read named a study the list showed.
    assert!(absent.checked_ordinals.len() >= 3, "{absent:?}");
    for id in ["99", "7"] {
        let (answer, is_error) = served.call(DETAIL_TOOL, study(&served, id));
        assert!(!is_error, "{answer}");
        assert_eq!(answer["status"], 404, "{answer}");
        assert_eq!(answer["state"]["view"], "missing", "{answer}");
        assert_eq!(
            answer["body"],
            json!({"reason": format!("study_id={id} is not found")}),
            "{answer}"
        );
    }
    // A held study answers its document from the state (one per study id), as recorded byte
    // for byte (a read slicing its trials, the slice of its line's recording).
    for ordinal in &absent.checked_ordinals {
        let record = &served.records[*ordinal as usize];
        let (answer, is_error) = served.call(
            DETAIL_TOOL,
            arguments_of(&served.replay, DETAIL_TOOL, record),
        );
        assert!(!is_error, "{answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        assert_eq!(answer["body"], recorded_answer(record).1, "{ordinal}");
    }
}

#[test]
fn optuna_slices_a_studys_trials_from_after() {
    let served = serve_corpus_app("optuna_dashboard");
    let sliced = served
        .state()
        .sliced_members
        .iter()
        .find(|sliced| sliced.tool == DETAIL_TOOL)
        .expect("after slices the study detail");
    assert_eq!(
        (sliced.parameter.as_str(), sliced.member.as_str()),
        ("after", "trials")
    );
    // The build read after=6 on study 1 only; every study the build read whole slices so.
    assert_eq!(sliced.checked_ordinals.len(), 1, "{sliced:?}");
    for base in &sliced.bases {
        let record = &served.records[base.ordinal as usize];
        let whole = recorded_answer(record).1;
        let trials = whole["trials"].as_array().expect("trials").clone();
        let mut arguments = arguments_of(&served.replay, DETAIL_TOOL, record);
        for after in [0, 1, trials.len().saturating_sub(1), trials.len() + 5] {
            arguments.insert("after".to_owned(), json!(after));
            let (answer, is_error) = served.call(DETAIL_TOOL, arguments.clone());
            assert!(!is_error, "{answer}");
            assert_eq!(answer["state"]["source"], "state", "{answer}");
            let mut expected = whole.clone();
            expected["trials"] = json!(trials[after.min(trials.len())..]);
            assert_eq!(answer["body"], expected, "{} after={after}", base.path);
        }
    }
    // A negative start is no slice the build showed: not modelled.
    let mut arguments = study(&served, "1");
    arguments.insert("after".to_owned(), json!(-1));
    let (answer, is_error) = served.call(DETAIL_TOOL, arguments);
    assert!(is_error, "{answer}");
}

//! Document writes on a real recording (jupyter_server's contents API): a file `PUT` saves the
//! text it sends and the application stamps the file's `size` as the bytes of that text (the
//! built-in `byte-length` rule stage explains it, learned from the build's saves), and answers
//! the save without its content (`content` and `format` `null`, the members every recorded answer
//! left null while the file held them). The save is served: the folder listing that shows the
//! file changes too, which the state does not model yet, so that folder answers not modelled after
//! a served save (`state_folder_writes`).
//!
//! Document writes landing in elements (optuna-dashboard, one recorded application): a trial's
//! note `PUT /api/studies/{study}/{trial}/note` lands on the `note` of every element of the
//! study detail's arrays whose `trial_id` the path names (the trial in `trials` and again in
//! `best_trials`), learned from the build's one call, whose only read after is sliced
//! (`?after=3`). The probe's note on another study's trial reads back as the application
//! answered it.

use rea_evidence::capture::capture_records;
use serde_json::json;

use crate::state_support::{
    capture_file, path_arguments, probe_with_line, recorded_answer, serve_corpus_app,
};

#[test]
fn jupyter_file_saves_learn_their_size_and_content_free_answer() {
    let served = serve_corpus_app("jupyter_server");
    let plans = &served.state().write_plans;
    let plan = plans
        .iter()
        .find(|plan| plan.tool == "put_contents_by_content_id_and_name")
        .unwrap_or_else(|| {
            let tools: Vec<(&str, &str)> = plans
                .iter()
                .map(|plan| (plan.tool.as_str(), plan.path_template.as_str()))
                .collect();
            panic!("no file save tool: {tools:?}")
        });
    assert_eq!(plan.method, "PUT");
    let size = plan
        .rules
        .iter()
        .find(|rule| rule.stage == "byte-length")
        .unwrap_or_else(|| panic!("no byte-length rule: {:?}", plan.rules));
    assert_eq!(size.explains, ["/size"]);
    assert_eq!(
        size.rule,
        rea_plugin_api::json::parse(br#"{"fields": {"/size": "content"}}"#).unwrap()
    );
    let response = plan.response.as_ref().expect("the learned answer");
    assert_eq!(response.nulled_members, ["content", "format"]);
    // The save is explained and its answer reproduced; the folder listing no longer withholds it.
    assert_eq!(plan.reason, None, "{plan:?}");
    assert!(plan.served);
}

#[test]
fn optuna_trial_notes_land_on_the_trial_the_path_names() {
    let served = serve_corpus_app("optuna_dashboard");
    let (write, read) = (
        "put_studies_note_by_study_id_and_segment_3",
        "get_studies_by_version",
    );
    let plan = served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.tool == write)
        .expect("the trial note plan");
    assert!(plan.served, "{plan:?}");
    let fields = plan.fields.as_ref().expect("fields");
    assert_eq!(fields.document_element.as_deref(), Some("trial_id"));
    assert_eq!(fields.document_pointer, "/note");
    // The probe's first note on banner-review's trial 17, read back as the application did.
    let dir = rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots())
        .into_iter()
        .find(|found| found.name == "optuna_dashboard")
        .expect("the corpus holds optuna_dashboard")
        .dir;
    let probes = capture_records(&capture_file(&dir.join("probe-crud.har"))).expect("records");
    let note = json!({"version": 1, "body": "Control banner."});
    let (answer, is_error) = served.call(
        write,
        path_arguments(&served, write, &["3", "17"], Some(note.clone())),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 204, "{answer}");
    let (detail, is_error) = served.call(read, path_arguments(&served, read, &["3"], None));
    assert!(!is_error, "{detail}");
    assert_eq!(detail["state"]["source"], "state", "{detail}");
    let live = probe_with_line(&probes, "GET /api/studies/3");
    assert_eq!(detail["body"], recorded_answer(live).1);
    assert_eq!(detail["body"]["best_trials"][0]["note"], note);
    // A trial the study does not hold: refused, the document unchanged.
    let (refused, is_error) = served.call(
        write,
        path_arguments(&served, write, &["3", "4"], Some(note)),
    );
    assert!(is_error, "{refused}");
    let (again, _) = served.call(read, path_arguments(&served, read, &["3"], None));
    assert_eq!(again["body"], detail["body"]);
}

/// The config section (`/api/config/tracker`) is first read after session and kernel writes the
/// state does not model; a write of its own path (`PATCH`) makes it a document seen until that
/// write. Its `PATCH`es are JSON merge patches (`editor` merged entry by entry, `null` removing
/// `autosave`), confirmed by the reads after each, and the section held nothing before them, so a
/// member no recorded call sent is accepted too.
#[test]
fn jupyter_config_patches_merge_the_section_past_unmodelled_writes() {
    let served = serve_corpus_app("jupyter_server");
    let state = served.state();
    let view = state
        .views
        .iter()
        .find(|view| view.path_template == "/api/config/tracker")
        .expect("the config view");
    assert!(
        matches!(view.detail, rea_state::model::ViewDetail::Document(_)),
        "{:?}",
        view.detail
    );
    let plan = state
        .write_plans
        .iter()
        .find(|plan| plan.method == "PATCH" && plan.path_template == "/api/config/tracker")
        .expect("the config PATCH plan");
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(plan.confirmed_by, [70, 72]);
    let fields = plan.fields.as_ref().expect("the field model");
    assert!(fields.null_removes);
    assert!(fields.merged.contains_key("editor"), "{fields:?}");
    assert!(plan.body.as_ref().is_some_and(|body| body.open));
}

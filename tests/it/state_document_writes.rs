//! Document writes on a real recording (jupyter_server's contents API): a file `PUT` saves the
//! text it sends and the application stamps the file's `size` as the bytes of that text (the
//! built-in `byte-length` rule stage explains it, learned from the build's saves), and answers
//! the save without its content (`content` and `format` `null`, the members every recorded answer
//! left null while the file held them). The save is served: the folder listing that shows the
//! file changes too, which the state does not model yet, so that folder answers not modelled after
//! a served save (`state_folder_writes`).

use crate::state_support::serve_corpus_app;

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

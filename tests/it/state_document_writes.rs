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

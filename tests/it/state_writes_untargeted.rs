//! A write the state has no target for is still the latest write when the confirming replay
//! meets a disagreement no entity explains: the disagreement is its own, never charged to an
//! earlier write as a side effect. Three recorded applications showed an earlier delete withheld
//! that way: PouchDB Server (`GET /_all_dbs` after the untargeted `PUT /loans`, charged to the
//! document `DELETE` before it), Datasette (list reads after the unmodelled bulk `rows` insert,
//! charged to the `/{pk}/-/delete` action) and FlexGet (charged to the series `DELETE`).

use crate::state_support::{arguments_of, corpus_write_plans, serve_corpus_app};
use serde_json::Value;

fn plan(app: &str, tool: &str) -> Value {
    corpus_write_plans(app)
        .into_iter()
        .find(|plan| plan["tool"] == tool)
        .unwrap_or_else(|| panic!("{app} has a plan for {tool}"))
}

#[test]
fn deletes_before_an_untargeted_write_are_served_on_three_applications() {
    for (app, tool) in [
        ("pouchdb-server", "delete_root_by_segment_0_and_id"),
        (
            "datasette",
            "post_tracker_delete_by_tracker_id_and_segment_2",
        ),
        ("flexget", "delete_series_by_sery_id"),
    ] {
        let plan = plan(app, tool);
        assert_eq!(plan["served"], true, "{app}: {plan:#}");
        assert_eq!(plan["reason"], Value::Null, "{app}: {plan:#}");
        assert!(
            !plan["confirmed_by"].as_array().expect("reads").is_empty(),
            "{app}: {plan:#}"
        );
    }
}

#[test]
fn a_served_document_delete_refuses_a_rev_the_build_never_sent() {
    let served = serve_corpus_app("pouchdb-server");
    let tool = "delete_root_by_segment_0_and_id";
    // The build's delete (call 60) sent rev=1-2916c45e…; the same tool on another document with
    // another rev: the rev is a precondition no rule models, so it is refused, never applied.
    let record = served
        .records
        .iter()
        .find(|record| record.ordinal == 60)
        .expect("build.har call 60");
    let mut arguments = arguments_of(&served.replay, tool, record);
    let id = arguments
        .iter()
        .find(|(_, value)| *value == "book:children-of-dune")
        .map(|(name, _)| name.clone())
        .expect("the document id argument");
    arguments.insert(id, Value::from("book:earthsea"));
    let rev = arguments
        .iter()
        .find(|(_, value)| {
            value
                .as_str()
                .is_some_and(|rev| rev.starts_with("1-2916c45e"))
        })
        .map(|(name, _)| name.clone())
        .expect("the rev argument");
    arguments.insert(rev, Value::from("2-69cfb3d3a5ea2a27230662a946a0b973"));
    let (answer, is_error) = served.call(tool, arguments);
    assert!(is_error, "{answer:#}");
    // The document is still held: its item read answers it from the state.
    let read = served
        .records
        .iter()
        .find(|record| record.ordinal == 14)
        .expect("build.har call 14 reads book:earthsea");
    let item = "get_root_by_segment_0_and_id";
    let (document, is_error) = served.call(item, arguments_of(&served.replay, item, read));
    assert!(!is_error, "{document:#}");
    assert_eq!(
        document
            .pointer("/body/_id")
            .or_else(|| document.get("_id")),
        Some(&Value::from("book:earthsea")),
        "{document:#}"
    );
}

//! A document no write tool writes (PouchDB's `/_all_dbs`; datasette's database overview
//! `/tracker.json`, listing its tables and their counts, until it became a list view of them) that a read after writes shows changed: a
//! write since its last read naming nothing the state holds (a table or a database created)
//! explains the change, so no write is charged with it as a side-effect (before, the latest
//! write was: datasette's row delete, PouchDB's document delete, both withheld); a change no such
//! write explains makes the view answer not modelled after a served write.

use rea_state::model::ViewDetail;

use crate::state_support::{self, Served, serve_corpus_app};

/// Whether a write tool's plan is served, and why not.
fn served_plan(served: &Served, method: &str, template: &str) -> (bool, Option<String>) {
    let tool = served
        .manifest
        .tools
        .iter()
        .find(|tool| tool.method == method && tool.path_template == template)
        .unwrap_or_else(|| panic!("a tool {method} {template}"));
    let plan = served
        .state()
        .write_plan(&tool.name)
        .unwrap_or_else(|| panic!("{} has a plan", tool.name));
    (plan.served, plan.reason.clone())
}

/// Whether a document view answers not modelled after a served write.
fn unmodelled(served: &Served, tool: &str) -> bool {
    match state_support::view_detail(served, tool) {
        ViewDetail::Document(document) => document.unmodelled_after_writes,
        other => panic!("{tool} is not a document view: {other:?}"),
    }
}

#[test]
fn a_datasette_row_delete_is_not_charged_with_the_table_a_create_added() {
    // `/tracker.json` read after `POST /tracker/-/create` (a table created) lists one table more.
    let served = serve_corpus_app("datasette");
    assert_eq!(
        served_plan(
            &served,
            "POST",
            "/tracker/{prefix-variance}/{numeric}/-/delete"
        ),
        (true, None)
    );
    // The overview lists its tables beside empty `views` and `queries`: the list is the one array
    // of objects (derive/list_place.rs), so the overview is now a list view of the tables, not a
    // document a write could leave unmodelled.
    assert!(matches!(
        state_support::view_detail(&served, "get_tracker_json"),
        ViewDetail::List(_)
    ));
}

#[test]
fn a_pouchdb_document_delete_is_not_charged_with_the_database_a_put_created() {
    // `/_all_dbs` read after `PUT /loans` (a database created) lists one database more.
    let served = serve_corpus_app("pouchdb-server");
    // The document DELETE (build record 60, `DELETE /library/book:children-of-dune?rev=…`).
    let plan = served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.method == "DELETE" && plan.record_ordinals.contains(&60))
        .expect("the document DELETE has a plan");
    let (served_delete, reason) = (plan.served, plan.reason.clone());
    assert_ne!(reason.as_deref(), Some("side-effect"));
    assert!(served_delete, "{reason:?}");
    assert!(!unmodelled(&served, "get_all_dbs"));
}

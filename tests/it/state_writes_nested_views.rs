//! Views inside a written collection after a served write: a type no write tool writes whose
//! collection lies inside the collection a served write writes (PouchDB Server's design-document
//! views `/{db}/_design%2Fcatalog/_view/…`, the design document id one segment, its Mango index list `/{db}/_index`, beside the
//! `_all_docs` rows and `_changes` feed a recorded read after a write already showed changed) is
//! an index, a view or a feed of the written documents. The state answers it before the first
//! write; after a served write it answers not modelled, never the counts and rows it held before
//! the write (the probe's grouped genre counts missed the created book this way).
//!
//! Only PouchDB Server shows such a type in the corpus (a one-app rule: no other recorded
//! application reads a collection nested inside the one its served writes write that no write
//! tool writes); the rule's unit test is `derive::tests::types_inside_a_served_collection_…`.

use crate::state_support::{arguments_of, assert_not_modelled, serve_corpus_app};
use serde_json::{Value, json};

/// The build's read of `tool` at `ordinal`, called on the served state.
fn read(served: &crate::state_support::Served, tool: &str, ordinal: u64) -> (Value, bool) {
    let record = served
        .records
        .iter()
        .find(|record| record.ordinal == ordinal)
        .unwrap_or_else(|| panic!("build.har holds call {ordinal}"));
    served.call(tool, arguments_of(&served.replay, tool, record))
}

/// The design-document views the build read before its first write (`build.har` calls 24, 25
/// and 26), by tool.
const VIEWS: [(&str, u64); 3] = [
    ("get_design_catalog_view_by_author_by_segment_0", 24),
    ("get_design_catalog_view_by_year_by_segment_0", 25),
    ("get_design_catalog_view_by_genre_by_segment_0", 26),
];

#[test]
fn design_document_views_answer_from_the_state_until_a_served_write_then_refuse() {
    let served = serve_corpus_app("pouchdb-server");
    let unmodelled: Vec<&str> = served
        .state()
        .types
        .iter()
        .filter(|known| known.unmodelled_after_writes)
        .map(|known| known.collection_template.as_str())
        .collect();
    for view in ["by_author", "by_year", "by_genre"] {
        assert!(
            unmodelled
                .iter()
                .any(|template| template.ends_with(&format!("/_design%2Fcatalog/_view/{view}"))),
            "{unmodelled:?}"
        );
    }
    // The documents' own type is written by the document PUT: it stays modelled.
    assert!(
        !unmodelled.iter().any(|template| template.ends_with("}")),
        "{unmodelled:?}"
    );
    // Before any write each view answers its recorded query from the state.
    for (tool, ordinal) in VIEWS {
        let (before, is_error) = read(&served, tool, ordinal);
        assert!(!is_error, "{tool}: {before:#}");
        assert_eq!(
            before.pointer("/state/source"),
            Some(&Value::from("state")),
            "{tool}: {before:#}"
        );
    }
    // A served create (the probe's POST /library of a science-fiction book).
    let post = "post_root_by_db_name";
    let mut arguments = serde_json::Map::new();
    for argument in &served
        .replay
        .tool(post)
        .expect("tool")
        .input_schema
        .arguments
    {
        match &argument.target {
            rea_manifest::catalog::ArgumentTarget::Path { .. } => {
                arguments.insert(argument.name.clone(), json!("library"));
            }
            rea_manifest::catalog::ArgumentTarget::Body => {
                arguments.insert(
                    argument.name.clone(),
                    json!({"type": "book", "title": "Bloodchild", "author": "author:butler",
                        "year": 1995, "genre": "sf", "pages": 214, "status": "available",
                        "tags": ["stories"]}),
                );
            }
            rea_manifest::catalog::ArgumentTarget::Query { .. } => {}
        }
    }
    let (created, is_error) = served.call(post, arguments);
    assert!(!is_error, "{created:#}");
    // The grouped counts, the author and year rows would now lack the new book: not modelled.
    for (tool, ordinal) in VIEWS {
        let (after, is_error) = read(&served, tool, ordinal);
        assert_not_modelled(&after, is_error);
        assert!(
            after.to_string().contains("unmodelled-after-write"),
            "{tool}: {after:#}"
        );
    }
}

//! An item read whose query only restates the entity it answers is the entity: Jupyter Server's
//! build read `data/sales.csv` once, as `?type=file&format=text`, and the answer's `type` and
//! `format` members hold exactly those values, so the state holds the file (before, only plain
//! reads seeded entities, the state held no `.csv` file and `name-suffix` refused a created
//! `data/budget.csv`). A call naming such a parameter answers the entity only where the live
//! entity holds the value it gives: `format=base64` of a text file, which no read showed, is not
//! answered as the text (`unrestated-query`). Only this recorded application shows an item read
//! with such a query (no other corpus build reads an item with query pairs its answer restates).

use rea_state::model::ViewDetail;
use serde_json::Value;

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, serve_corpus_app, view_detail};

const FILE_TOOL: &str = "get_api_contents_by_prefix_variance_and_sibling_variance";
const FILE_TEMPLATE: &str = "/api/contents/{prefix-variance}/{sibling-variance}";

fn get(served: &Served, target: &str) -> (Value, bool) {
    get_with(served, target, (FILE_TEMPLATE, FILE_TOOL))
}

/// A GET of `target` through the tool of `template`, which must be `tool`.
pub(crate) fn get_with(
    served: &Served,
    target: &str,
    (template, tool): (&str, &str),
) -> (Value, bool) {
    let (name, arguments) = call_for(served, "GET", target, Some(template));
    assert_eq!(name, tool, "{target}");
    served.call(&name, arguments)
}

#[test]
fn a_read_whose_query_restates_its_entity_seeds_it_and_names_the_restating_parameters() {
    let served = serve_corpus_app("jupyter_server");
    let ViewDetail::Item(item) = view_detail(&served, FILE_TOOL) else {
        panic!("the file tool is no item view");
    };
    assert_eq!(item.restated_query, ["format", "type"]);
    let held = served
        .state()
        .entities
        .iter()
        .any(|entity| entity.collection == "/api/contents/data" && entity.id == "sales.csv");
    assert!(held, "data/sales.csv is not held");
}

#[test]
fn a_call_restating_the_live_entity_answers_it_and_another_value_does_not() {
    let served = serve_corpus_app("jupyter_server");
    let (plain, is_error) = get(&served, "/api/contents/data/sales.csv");
    assert!(!is_error, "{plain}");
    assert_eq!(plain["status"], 200, "{plain}");
    assert_eq!(plain["body"]["mimetype"], "text/csv", "{plain}");
    assert_eq!(plain["body"]["format"], "text", "{plain}");
    // The recorded query on another text file the state holds answers that file.
    let (restated, is_error) = get(&served, "/api/contents/notes/todo.md?type=file&format=text");
    assert!(!is_error, "{restated}");
    assert_eq!(restated["status"], 200, "{restated}");
    assert_eq!(restated["body"]["path"], "notes/todo.md", "{restated}");
    // A PNG the state holds as base64 does not restate format=text: not answered as the entity.
    let (other, _) = get(&served, "/api/contents/data/logo.png?format=text");
    assert_ne!(other["body"]["path"], "data/logo.png", "{other}");
    // Nor does a text file restate format=base64.
    let (base64, _) = get(&served, "/api/contents/data/sales.csv?format=base64");
    assert_ne!(base64["body"]["format"], "text", "{base64}");
}

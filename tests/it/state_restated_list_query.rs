//! A list read naming a parameter its tool took from a query family, which an item view under
//! the list's path learned as restating its entity, answers the list where the answer's own
//! top-level member holds the value given: Jupyter Server's root tool takes `type` and `format`
//! from its folder tree's family (the build read `data/sales.csv?type=file&format=text`, whose
//! answer restates both), and the root folder model's `type` is `directory`, so
//! `GET /api/contents?type=directory` is the root listing (before, the state refused it as
//! `shared-query`). A value the answer does not hold (`type=file`) is not answered as the listing
//! (`unrestated-query`). Only this recorded application shows an item read with a restating
//! query (no other corpus build reads an item with query pairs its answer restates), so no
//! second application shows the list rule either.

use rea_state::model::ViewDetail;
use serde_json::Value;

use crate::state_restated_query::get_with;
use crate::state_support::{Served, serve_corpus_app, view_detail};

const ROOT_TOOL: &str = "get_contents";
const ROOT_TEMPLATE: &str = "/api/contents";

fn get(served: &Served, target: &str) -> (Value, bool) {
    get_with(served, target, (ROOT_TEMPLATE, ROOT_TOOL))
}

#[test]
fn the_root_list_checks_the_restating_parameters_of_its_family() {
    let served = serve_corpus_app("jupyter_server");
    let ViewDetail::List(list) = view_detail(&served, ROOT_TOOL) else {
        panic!("the root tool is no list view");
    };
    assert_eq!(list.restated_query, ["type", "format"]);
    // The family's other parameters, which no item view learned as restating, stay refused.
    assert_eq!(
        list.projected_query_keys.get("hash").map(String::as_str),
        Some("shared-query")
    );
    assert!(!list.projected_query_keys.contains_key("type"));
}

#[test]
fn a_call_restating_the_root_model_answers_the_listing_and_another_value_does_not() {
    let served = serve_corpus_app("jupyter_server");
    let (plain, is_error) = get(&served, "/api/contents");
    assert!(!is_error, "{plain}");
    assert_eq!(plain["body"]["type"], "directory", "{plain}");
    let (restated, is_error) = get(&served, "/api/contents?type=directory");
    assert!(!is_error, "{restated}");
    assert_eq!(restated["status"], 200, "{restated}");
    assert_eq!(restated["body"], plain["body"]);
    // A type the root model does not hold is not answered as the listing.
    let (other, _) = get(&served, "/api/contents?type=file");
    assert_ne!(other["body"]["type"], "directory", "{other}");
}

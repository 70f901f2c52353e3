//! A list two levels deep (`{"data": {"collection": […], "@total_size": 6}}`) held as a list of
//! its class's entities, and the query roles its recorded queries teach: control parameters
//! spelled with a sigil (`@sort`, `@page_size`, `@page_index`, `@fields`) playing the roles of
//! their plain names, a selection left out of query learning, a sort by a key the state holds no
//! scalar for (`-activity`, a link object) leaving its line unanswered instead of the sort role
//! given up, and a field's own name holding its value as a case-insensitive substring
//! (`title=page`). One app: Roundup (no other corpus application nests its list two levels deep
//! or filters by substring under a field's own name).

use rea_state::model::QueryRole;
use serde_json::Value;

use crate::state_support::{call_with_strings, list_view, query_model, serve_corpus_app};

const ISSUES: &str = "get_rt_rest_data_issue";

fn titles(answer: &Value) -> Vec<String> {
    answer["body"]["data"]["collection"]
        .as_array()
        .unwrap_or_else(|| panic!("a nested list: {answer:#}"))
        .iter()
        .map(|member| member["title"].as_str().expect("a title").to_owned())
        .collect()
}

#[test]
fn a_list_two_levels_deep_learns_its_sigil_spelled_roles() {
    let served = serve_corpus_app("roundup");
    assert_eq!(list_view(&served, ISSUES).list_pointer, "/data/collection");
    let model = query_model(&served, ISSUES);
    assert_eq!(model.parameters.get("@sort"), Some(&QueryRole::Sort));
    assert_eq!(
        model.parameters.get("@page_size"),
        Some(&QueryRole::PageSize)
    );
    assert_eq!(
        model.parameters.get("title"),
        Some(&QueryRole::filter("title", "like"))
    );
}

#[test]
fn a_substring_filter_and_another_sort_answer_from_the_state() {
    let served = serve_corpus_app("roundup");
    // Recorded: title=page. Asked: another word, in another case.
    let (answer, is_error) = call_with_strings(
        &served,
        ISSUES,
        &[("title", "EXPORT"), ("@fields", "title")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(titles(&answer), vec!["Crash when exporting an empty query"]);
    // Recorded: @sort=title and -activity. Asked: by id, descending.
    let (answer, is_error) =
        call_with_strings(&served, ISSUES, &[("@sort", "-id"), ("@fields", "title")]);
    assert!(!is_error, "{answer:#}");
    let ids: Vec<&str> = answer["body"]["data"]["collection"]
        .as_array()
        .expect("members")
        .iter()
        .map(|member| member["id"].as_str().expect("an id"))
        .collect();
    let mut descending = ids.clone();
    descending.sort_by_key(|id| std::cmp::Reverse(id.parse::<u64>().expect("a number")));
    assert_eq!(ids, descending);
}

//! A list's tie order: the key its sorts break ties by ([`QueryModel::tie_order`]). A sort
//! keeps entities its keys find equal in the state's order, which is the order the list's
//! entities were first seen in (newest first for a list read newest first). An application whose
//! sort leaves ties in its store's order (PiccoloCRUD's `__order` on SQLite: the rowid ascending,
//! beside a default list newest first) lists them otherwise; the identity order, ascending or
//! descending, is then the candidate a list's recorded sorted lines choose between, as they
//! choose where null keys sort ([`QueryModel::nulls_first`]). A direction is a candidate only
//! where it orders some collection the lines read otherwise than the state's order does: else it
//! breaks every tie as the state does, and the lines cannot tell it apart.
//!
//! [`QueryModel::tie_order`]: crate::model::QueryModel::tie_order
//! [`QueryModel::nulls_first`]: crate::model::QueryModel::nulls_first

use std::cmp::Ordering;

use rea_plugin_api::json::Object;

use crate::query::{compare_values, field_value};

/// The tie orders (sort key spellings: `id`, `-id`) a list's sorts may break ties by beyond the
/// state's order: the identity member ascending, then descending, each where some collection
/// (its candidates in state order) is not already in that order. None for an identity nested in
/// the entity (a pointer) or one some candidate lacks.
pub(super) fn candidates<'c>(
    identity: &str,
    collections: impl Iterator<Item = &'c [&'c Object]> + Clone,
) -> Vec<String> {
    if identity.is_empty() || identity.starts_with('/') {
        return Vec::new();
    }
    let held = collections
        .clone()
        .flatten()
        .all(|object| field_value(object, identity).is_some());
    if !held {
        return Vec::new();
    }
    let mut tie_orders = Vec::new();
    for descending in [false, true] {
        let reorders = collections
            .clone()
            .any(|candidates| !in_order(candidates, identity, descending));
        if reorders {
            let sign = if descending { "-" } else { "" };
            tie_orders.push(format!("{sign}{identity}"));
        }
    }
    tie_orders
}

/// Whether the candidates are in the identity's order already (equal identities allowed).
fn in_order(candidates: &[&Object], identity: &str, descending: bool) -> bool {
    candidates.windows(2).all(|pair| {
        let ordering = compare_values(
            field_value(pair[0], identity),
            field_value(pair[1], identity),
        );
        let ordering = if descending {
            ordering.reverse()
        } else {
            ordering
        };
        ordering != Ordering::Greater
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use rea_plugin_api::json::Json;

    use crate::test_support::parsed_json;

    fn objects(text: &str) -> Vec<Object> {
        match parsed_json(text) {
            Json::Array(items) => items
                .into_iter()
                .filter_map(|item| match item {
                    Json::Object(object) => Some(object),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn candidates_of(identity: &str, collections: &[&str]) -> Vec<String> {
        let held: Vec<Vec<Object>> = collections.iter().map(|text| objects(text)).collect();
        let borrowed: Vec<Vec<&Object>> = held.iter().map(|list| list.iter().collect()).collect();
        candidates(identity, borrowed.iter().map(Vec::as_slice))
    }

    #[test]
    fn a_direction_the_state_order_already_holds_is_no_candidate() {
        // Newest first: only ascending breaks ties otherwise.
        let newest = r#"[{"id": 3}, {"id": 2}, {"id": 1}]"#;
        assert_eq!(candidates_of("id", &[newest]), ["id"]);
        // Oldest first: only descending does.
        let oldest = r#"[{"id": 1}, {"id": 2}, {"id": 3}]"#;
        assert_eq!(candidates_of("id", &[oldest]), ["-id"]);
        // Neither: both, ascending first.
        let mixed = r#"[{"id": 2}, {"id": 3}, {"id": 1}]"#;
        assert_eq!(candidates_of("id", &[mixed]), ["id", "-id"]);
        // Any collection the lines read counts.
        assert_eq!(candidates_of("id", &[oldest, newest]), ["id", "-id"]);
        // Text identities compare as the sorts compare them (numbers as numbers).
        let texts = r#"[{"id": "10"}, {"id": "9"}]"#;
        assert_eq!(candidates_of("id", &[texts]), ["id"]);
    }

    /// The tie order the posts list learned from a plain line listing `plain` (ids) and a line
    /// sorted by views listing `sorted`.
    fn learned_tie_order(plain: [u64; 4], sorted: [u64; 4]) -> Option<Option<String>> {
        use crate::derive::tests::{derive, record};
        use serde_json::json;
        let post = |id: u64| json!({"id": id, "title": format!("post {id}"), "views": id % 2});
        let listed = |ids: [u64; 4]| json!(ids.map(post));
        let fixture = derive(vec![
            record(0, "GET", "/posts", 200, listed(plain)),
            record(1, "GET", "/posts?sort=views", 200, listed(sorted)),
        ]);
        match fixture.view("get_posts") {
            crate::model::ViewDetail::List(list) => {
                let model = list.query.as_ref()?;
                model
                    .parameters
                    .contains_key("sort")
                    .then(|| model.tie_order.as_deref().map(str::to_owned))
            }
            other => panic!("a list view: {other:?}"),
        }
    }

    #[test]
    fn a_sort_listing_ties_by_id_apart_from_the_state_order_learns_the_tie_order() {
        // Newest first, ties (views 0: posts 2, 4; views 1: posts 1, 3) ascending: `id`.
        assert_eq!(
            learned_tie_order([4, 3, 2, 1], [2, 4, 1, 3]),
            Some(Some("id".to_owned()))
        );
        // Ties in the state's order: none learned.
        assert_eq!(learned_tie_order([4, 3, 2, 1], [4, 2, 3, 1]), Some(None));
        assert_eq!(learned_tie_order([1, 2, 3, 4], [2, 4, 1, 3]), Some(None));
        // Oldest first, ties descending: `-id`.
        assert_eq!(
            learned_tie_order([1, 2, 3, 4], [4, 2, 3, 1]),
            Some(Some("-id".to_owned()))
        );
    }

    #[test]
    fn an_identity_nested_or_not_held_by_every_candidate_gives_none() {
        let newest = r#"[{"id": 3}, {"id": 2}, {"id": 1}]"#;
        assert!(candidates_of("/info/id", &[newest]).is_empty());
        assert!(candidates_of("", &[newest]).is_empty());
        let lacking = r#"[{"id": 3}, {"name": "b"}, {"id": 1}]"#;
        assert!(candidates_of("id", &[lacking]).is_empty());
    }
}

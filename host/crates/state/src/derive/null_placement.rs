//! Where a state's sorts place null keys, shared across its lists: a list learns
//! [`QueryModel::nulls_first`] only where a recorded sorted line shows it (a sort by a field some
//! entity of the list's type holds `null` at or lacks). Null placement is the store's, not one
//! list's, so a list whose recorded sorts never met a null key takes the placement every list
//! that showed one learned (Sails.js's people sorted by `email` place the null first, as its
//! tasks sorted by `dueDate` showed; Flask-AppBuilder's people by `email`, as its tasks by
//! `estimate`, the sort a term of the Rison query the pipeline's grammars split). Lists that
//! showed placements that differ keep their own, and so do the others.

use rea_plugin_api::json::Json;

use crate::model::{Entity, ListView, QueryModel, QueryRole, ReadView, ViewDetail};
use crate::rules::RuleSet;

/// Gives the lists whose recorded sorts met no null key the placement every list whose sorts
/// met one learned, when they all learned nulls first.
pub(super) fn share(entities: &[Entity], views: &mut [ReadView], rules: &RuleSet) {
    let mut shown = Vec::new();
    for (index, view) in views.iter().enumerate() {
        if let Some((list, model)) = sorted_list(view)
            && meets_null(list, model, entities, rules)
        {
            shown.push((index, model.nulls_first));
        }
    }
    if shown.is_empty() || !shown.iter().all(|(_, first)| *first) {
        return;
    }
    for (index, view) in views.iter_mut().enumerate() {
        if shown.iter().any(|(at, _)| *at == index) || sorted_list(view).is_none() {
            continue;
        }
        if let ViewDetail::List(list) = &mut view.detail
            && let Some(model) = list.query.as_mut()
        {
            model.nulls_first = true;
        }
    }
}

/// A list view whose learned query model sorts.
fn sorted_list(view: &ReadView) -> Option<(&ListView, &QueryModel)> {
    let (list, model) = view.list_query()?;
    let sorts = model
        .parameters
        .values()
        .any(|role| matches!(role, QueryRole::Sort));
    sorts.then_some((list, model))
}

/// Whether a recorded line of the list sorts by a field some entity of its type holds `null`
/// at or lacks (its query's expressions split into their terms by the pipeline's grammars).
fn meets_null(list: &ListView, model: &QueryModel, entities: &[Entity], rules: &RuleSet) -> bool {
    let sorted_by = list
        .lines
        .iter()
        .filter_map(|line| line.query.as_ref())
        .flat_map(|pairs| crate::query_terms::expand(rules, pairs, &[]).pairs)
        .filter(|(name, _)| matches!(model.parameters.get(name), Some(QueryRole::Sort)))
        .filter_map(|(_, value)| crate::query::sort_keys(&value))
        .flatten();
    let held = |field: &str| {
        entities
            .iter()
            .filter(|entity| entity.entity_type == list.entity_type)
            .any(|entity| {
                // As a sort reads the field (a JSON:API resource's under `attributes`).
                entity
                    .fields
                    .as_object()
                    .and_then(|object| crate::query::field_value(object, field))
                    .is_none_or(|value| *value == Json::Null)
            })
    };
    sorted_by.into_iter().any(|(field, _)| held(&field))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::entity;

    fn list(entity_type: &str, sorted: &[&str], nulls_first: bool) -> ReadView {
        let queries: Vec<Vec<(String, String)>> = sorted
            .iter()
            .map(|value| vec![("sort".to_owned(), (*value).to_owned())])
            .collect();
        let mut query = QueryModel::of_roles(&[("sort", QueryRole::Sort)]);
        query.nulls_first = nulls_first;
        crate::test_support::list_read_view(entity_type, "", &queries, query)
    }

    fn nulls_first(views: &[ReadView]) -> Vec<bool> {
        views
            .iter()
            .filter_map(|view| sorted_list(view).map(|(_, model)| model.nulls_first))
            .collect()
    }

    #[test]
    fn a_list_whose_sorts_met_no_null_takes_the_placement_the_others_showed() {
        let entities = [
            entity("/task", "1", r#"{"id": 1, "due": null}"#),
            entity("/task", "2", r#"{"id": 2, "due": "2026-12-01"}"#),
            entity(
                "/person",
                "1",
                r#"{"id": 1, "name": "Ines", "email": null}"#,
            ),
        ];
        // The tasks sorted by a field holding null learned nulls first; the people, sorted only
        // by a name every person holds, take it.
        let mut views = vec![
            list("/task", &["due ASC"], true),
            list("/person", &["name DESC"], false),
        ];
        share(&entities, &mut views, &RuleSet::empty());
        assert_eq!(nulls_first(&views), [true, true]);
        // A list whose own sorts met a null keeps what it learned, and then nothing is shared
        // unless every such list placed nulls first.
        let mut views = vec![
            list("/task", &["due ASC"], true),
            list("/person", &["email ASC"], false),
            list("/project", &["name ASC"], false),
        ];
        share(&entities, &mut views, &RuleSet::empty());
        assert_eq!(nulls_first(&views), [true, false, false]);
        // Nothing learned first: nothing changes.
        let mut views = vec![list("/person", &["name DESC"], false)];
        share(&entities, &mut views, &RuleSet::empty());
        assert_eq!(nulls_first(&views), [false]);
    }
}

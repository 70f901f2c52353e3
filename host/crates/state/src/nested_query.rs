//! Queries over a nested list (`/projects/2/tasks?q[priority_eq]=3`): a list under a parent
//! ([`crate::relations::ParentSegment`]) called with a query its own lines do not answer is
//! evaluated over the entities holding the parent the call names. The query model is the one of
//! a list of the same entity type under no parent (the type's top-level list, whose recorded
//! queries taught it the application's query language) where that model reads every parameter,
//! else the nested list's own (the roles its query grammars propose). A paging parameter is not
//! evaluated: no recording showed what the nested list's pages hold besides their members.

use crate::model::{ListView, QueryModel, ReadView, ViewDetail};

/// The query models a call of `list` may be evaluated with, in the order they are tried: the
/// models of the lists of its entity type under no parent (in the state's view order), then its
/// own.
pub fn lent_models<'a>(
    views: &'a [ReadView],
    list: &'a ListView,
) -> impl Iterator<Item = &'a QueryModel> {
    let top_level = views.iter().filter_map(move |view| match &view.detail {
        ViewDetail::List(other)
            if other.parent.is_none() && other.entity_type == list.entity_type =>
        {
            other.query.as_ref()
        }
        _ => None,
    });
    top_level.chain(list.query.as_ref())
}

/// Whether the model evaluates every parameter of the call: each has a role, none pages.
pub fn reads_every(model: &QueryModel, pairs: &[(String, String)]) -> bool {
    !pairs.is_empty()
        && pairs
            .iter()
            .all(|(name, _)| model.role(name).is_some_and(|role| !role.is_paging()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::QueryRole;

    fn pairs(names: &[&str]) -> Vec<(String, String)> {
        names
            .iter()
            .map(|name| ((*name).to_owned(), "1".to_owned()))
            .collect()
    }

    #[test]
    fn a_model_reads_a_call_when_every_parameter_has_a_role_that_does_not_page() {
        let model = QueryModel::of_roles(&[
            ("status", QueryRole::filter("status", "eq")),
            ("page", QueryRole::Page { base: 1 }),
        ]);
        assert!(reads_every(&model, &pairs(&["status"])));
        assert!(!reads_every(&model, &pairs(&["status", "page"])));
        assert!(!reads_every(&model, &pairs(&["status", "owner"])));
        assert!(!reads_every(&model, &pairs(&[])));
    }
}

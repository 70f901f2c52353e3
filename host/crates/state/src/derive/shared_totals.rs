//! Totals shared across a state's lists. A list whose lines never asked for a page listed every
//! member its query matched, so an envelope member counting them (`count`) showed both the
//! number listed and the number matched: the list learned it as a counter of what it lists (see
//! `lists.rs::common_counters`). Where a sibling list, its items at the same place, learned that
//! member as the number matched (its pages listed fewer: [`QueryModel::totals`]), the
//! application counts matches there, so the list takes the member as a total too, and a call
//! paging it through the roles its siblings lend counts every match, not the page (Flask-AppBuilder's
//! people, never paged, beside its paged tasks and projects). A list whose own lines paged, or
//! listed as many members as its default page size, keeps what it learned, and so does a member
//! the list learned both ways (a list below a parent counting the parent's members).

use crate::model::{ListView, QueryModel, QueryRole, ReadView, ViewDetail};
use crate::rules::RuleSet;

/// Makes each list's counters that its sibling lists learned as totals totals (see the module
/// docs).
pub(super) fn share(views: &mut [ReadView], rules: &RuleSet) {
    let totals: Vec<(usize, String, String)> = views
        .iter()
        .enumerate()
        .filter_map(|(index, view)| Some((index, view.list_query()?)))
        .flat_map(|(index, (list, model))| {
            model
                .totals
                .iter()
                .map(move |total| (index, list.list_pointer.clone(), total.clone()))
        })
        .collect();
    if totals.is_empty() {
        return;
    }
    for (index, view) in views.iter_mut().enumerate() {
        let ViewDetail::List(list) = &mut view.detail else {
            continue;
        };
        let Some(model) = list.query.as_ref() else {
            continue;
        };
        if pages_anywhere(list, model, rules) {
            continue;
        }
        let shared: Vec<String> = list
            .counters
            .iter()
            .filter(|counter| !model.totals.contains(counter))
            .filter(|counter| {
                totals.iter().any(|(other, pointer, total)| {
                    *other != index && *pointer == list.list_pointer && total == *counter
                })
            })
            .cloned()
            .collect();
        if shared.is_empty() {
            continue;
        }
        list.counters.retain(|counter| !shared.contains(counter));
        if let Some(model) = list.query.as_mut() {
            model.totals.extend(shared);
        }
    }
}

/// Whether some line of the list asked for a page (a term of its query, split by the pipeline's
/// grammars, playing a paging role the list learned or was lent), or listed as many members as
/// its default page size (a page that may have left matches out).
fn pages_anywhere(list: &ListView, model: &QueryModel, rules: &RuleSet) -> bool {
    let paging = |name: &str| {
        model
            .parameters
            .get(name)
            .or_else(|| model.generalized.get(name))
            .is_some_and(|role| role.is_paging() || matches!(role, QueryRole::After { .. }))
    };
    list.lines.iter().any(|line| {
        let asked = line.query.as_ref().is_some_and(|pairs| {
            crate::query_terms::expand(rules, pairs, &[])
                .pairs
                .iter()
                .any(|(name, _)| paging(name))
        });
        let full = model
            .default_page_size
            .is_some_and(|size| line.members.len() >= size as usize);
        asked || full
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(tool: &str, query: &[(&str, &str)], counters: &[&str], totals: &[&str]) -> ReadView {
        let pairs = query
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        let mut model = QueryModel::of_roles(&[("page", QueryRole::Page { base: 1 })]);
        model.totals = totals.iter().map(|total| (*total).to_owned()).collect();
        let mut view = crate::test_support::list_read_view(tool, "/results", &[pairs], model);
        if let ViewDetail::List(list) = &mut view.detail {
            list.counters = counters
                .iter()
                .map(|counter| (*counter).to_owned())
                .collect();
        }
        view
    }

    fn counted(view: &ReadView) -> (Vec<String>, Vec<String>) {
        let (list, model) = view.list_query().expect("a list");
        (list.counters.clone(), model.totals.clone())
    }

    #[test]
    fn an_unpaged_lists_counter_is_a_total_where_a_paged_sibling_counts_matches() {
        let mut views = vec![
            list("/tasks", &[("page", "2")], &[], &["/count"]),
            list("/people", &[("role", "lead")], &["/count"], &[]),
            // Paged itself: its counter counts what it listed.
            list("/projects", &[("page", "2")], &["/count"], &[]),
            // Learned both ways: kept.
            list("/tags", &[], &["/count"], &["/count"]),
        ];
        share(&mut views, &RuleSet::empty());
        assert_eq!(counted(&views[1]), (vec![], vec!["/count".to_owned()]));
        assert_eq!(counted(&views[2]), (vec!["/count".to_owned()], vec![]));
        assert_eq!(
            counted(&views[3]),
            (vec!["/count".to_owned()], vec!["/count".to_owned()])
        );
    }
}

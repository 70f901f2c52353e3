//! Sorts over several keys sent as one sort parameter repeated (`order_by=genre&order_by=-year`,
//! as django-tastypie's `apply_sorting` reads `getlist('order_by')`): a list's query model lets
//! its sorts repeat ([`QueryModel::repeated_sort`]) where a recorded line repeating only sort
//! parameters lists its members as its keys applied in sequence order them (the first key first)
//! and not as its first key alone orders them, and no such line disagrees with the sequence.
//! The application reads its sort parameters alike: a list that recorded no line repeating a
//! name takes the flag where it sorts by a name a repeating list lets repeat (django-tastypie's
//! loans by `order_by`, taught by its books).
//!
//! [`QueryModel::repeated_sort`]: crate::model::QueryModel::repeated_sort

use std::collections::BTreeSet;

use crate::model::{ListView, QueryModel, QueryRole, ReadView, ViewDetail};

/// The names a line's arguments repeat.
pub(super) fn repeated_names(arguments: &[(String, String)]) -> BTreeSet<&str> {
    let mut seen = BTreeSet::new();
    arguments
        .iter()
        .filter(|(name, _)| !seen.insert(name.as_str()))
        .map(|(name, _)| name.as_str())
        .collect()
}

/// The arguments with each name's first value only (a repeated sort read as its first key).
fn first_values(arguments: &[(String, String)]) -> Vec<(String, String)> {
    let mut seen = BTreeSet::new();
    arguments
        .iter()
        .filter(|(name, _)| seen.insert(name.as_str()))
        .cloned()
        .collect()
}

/// Whether the lines repeating a name (`lines`, each its arguments) teach that the model's sorts
/// repeat (see the module docs); `agrees(index, arguments)` says whether arguments (a repeated
/// sort's keys read in sequence) list what the line at `index` listed. A line repeating a name
/// the model gives no sort role teaches nothing either way.
pub(super) fn learned(
    model: &QueryModel,
    lines: &[Vec<(String, String)>],
    mut agrees: impl FnMut(usize, &[(String, String)]) -> bool,
) -> bool {
    let mut shown = false;
    for (index, arguments) in lines.iter().enumerate() {
        let repeated = repeated_names(arguments);
        let sorts = |name: &&str| matches!(model.parameters.get(*name), Some(QueryRole::Sort));
        if repeated.is_empty() || !repeated.iter().all(sorts) {
            continue;
        }
        if !agrees(index, arguments) {
            return false;
        }
        shown |= !agrees(index, &first_values(arguments));
    }
    shown
}

/// Gives the lists that recorded no line repeating a name the flag where they sort by a name
/// (recorded or generalized) some list whose sorts repeat sorts by (see the module docs).
pub(super) fn share(views: &mut [ReadView]) {
    let taught: BTreeSet<String> = (views.iter())
        .filter_map(|view| view.list_query().filter(|(_, model)| model.repeated_sort))
        .flat_map(|(_, model)| sort_names(model))
        .collect();
    for view in views.iter_mut() {
        let ViewDetail::List(list) = &mut view.detail else {
            continue;
        };
        let shown = recorded_repetition(list);
        if let Some(model) = list.query.as_mut()
            && !shown
            && sort_names(model).any(|name| taught.contains(&name))
        {
            model.repeated_sort = true;
        }
    }
}

/// The names a model sorts by, recorded or generalized.
fn sort_names(model: &QueryModel) -> impl Iterator<Item = String> + '_ {
    (model.parameters.iter().chain(&model.generalized))
        .filter(|(_, role)| matches!(role, QueryRole::Sort))
        .map(|(name, _)| name.clone())
}

/// Whether some recorded line of the list repeats a name.
fn recorded_repetition(list: &ListView) -> bool {
    (list.lines.iter())
        .filter_map(|line| line.query.as_deref())
        .any(|pairs| !repeated_names(pairs).is_empty())
}

#[cfg(test)]
mod tests {
    use rea_plugin_api::json::{Json, Object, parse};

    use super::*;
    use crate::query::order_matches;

    fn books() -> Vec<Object> {
        let text = r#"[{"genre": "fantasy", "year": 1990}, {"genre": "poetry", "year": 1950},
            {"genre": "fantasy", "year": 2001}]"#;
        let Ok(Json::Array(items)) = parse(text.as_bytes()) else {
            unreachable!()
        };
        items
            .into_iter()
            .filter_map(|item| match item {
                Json::Object(object) => Some(object),
                _ => None,
            })
            .collect()
    }

    /// Whether the line's arguments list `listed` (indexes) under the model, sorts repeating.
    fn learned_from(line: &[(&str, &str)], listed: &[usize]) -> bool {
        let model = QueryModel::of_roles(&[("order_by", QueryRole::Sort)]);
        let mut repeating = model.clone();
        repeating.repeated_sort = true;
        let books = books();
        let candidates: Vec<&Object> = books.iter().collect();
        let arguments: Vec<(String, String)> = line
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        learned(&model, &[arguments], |_, arguments| {
            order_matches(&repeating, arguments, &candidates)
                .is_some_and(|(matched, _)| matched == listed)
        })
    }

    #[test]
    fn a_line_agreeing_with_the_keys_in_sequence_learns_that_sorts_repeat() {
        let line = [("order_by", "genre"), ("order_by", "-year")];
        assert!(learned_from(&line, &[2, 0, 1]));
    }

    #[test]
    fn a_line_agreeing_with_its_first_key_alone_learns_nothing() {
        let line = [("order_by", "genre"), ("order_by", "-year")];
        // The state's order breaks the genre's ties: what the first key alone lists.
        assert!(!learned_from(&line, &[0, 2, 1]));
        // Keys in sequence that order as the first alone show nothing either.
        let line = [("order_by", "genre"), ("order_by", "year")];
        assert!(!learned_from(&line, &[0, 2, 1]));
    }

    #[test]
    fn a_repeated_name_without_a_sort_role_teaches_nothing() {
        let model = QueryModel::of_roles(&[("order_by", QueryRole::Search)]);
        let line = vec![
            ("order_by".to_owned(), "genre".to_owned()),
            ("order_by".to_owned(), "-year".to_owned()),
        ];
        assert!(!learned(&model, &[line], |_, _| true));
    }
}

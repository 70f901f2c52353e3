//! Page arithmetic shared across a state's lists. One application writes every list's page
//! envelope alike, so where a list learned an envelope member as an arithmetic of the page
//! (dynamic-rest's `meta.page`, the page's number, and `meta.total_pages`, the pages its matches
//! fill), a sibling list (another list of the state, its items at the same place or under its
//! own key: `tasks` beside `projects`) whose own lines never asked for a page after the first
//! (so the number showed one constant and the count fit a page size as well) takes that
//! arithmetic at the pointer, outside its items, where the sibling's model takes a page parameter
//! and every line it answered shows there the arithmetic's value for the line's page (the first
//! without one), size (the default without one) and matches (its total). What the sibling had
//! learned at the pointer (a constant, a size) is replaced, and a default page size it had not
//! learned is the one its size member showed for lines asking none.

use rea_manifest::Manifest;

use crate::model::{PageArithmetic, PagedMember, QueryModel, QueryRole, ReadView};
use crate::observation::{Observation, Timeline};

/// Lends the lists' arithmetic members to their siblings (see the module docs).
pub(super) fn share(manifest: &Manifest, timeline: &Timeline, views: &mut [ReadView]) {
    let mut lent: Vec<(usize, PagedMember)> = Vec::new();
    for (index, view) in views.iter().enumerate() {
        let Some((list, model)) = view.list_query() else {
            continue;
        };
        let Some(tool) = super::tool_index(manifest, &view.tool) else {
            continue;
        };
        let lines = super::shared_links::answered_lines(timeline, tool, model);
        for (pointer, arithmetic) in sibling_arithmetic(views, index) {
            if pointer.starts_with(&list.list_pointer) {
                continue;
            }
            let held = model
                .paged_members
                .iter()
                .find(|member| member.pointer == pointer);
            if held.is_some_and(|member| member.arithmetic.is_some()) {
                continue;
            }
            if shows(model, &lines, &pointer, arithmetic) {
                lent.push((index, PagedMember::arithmetic_at(pointer, arithmetic)));
            }
        }
    }
    for (index, member) in lent {
        if let Some(model) = views[index].list_query_mut() {
            model
                .paged_members
                .retain(|held| held.pointer != member.pointer);
            model.paged_members.push(member);
            if model.default_page_size.is_none() {
                model.default_page_size =
                    shown_default_size(model).and_then(|size| u32::try_from(size).ok());
            }
        }
    }
}

/// The arithmetic members the lists other than `own` hold, each pointer with the one arithmetic
/// every list holding an arithmetic there agrees on.
fn sibling_arithmetic(views: &[ReadView], own: usize) -> Vec<(String, PageArithmetic)> {
    let mut found: Vec<(String, Option<PageArithmetic>)> = Vec::new();
    let siblings = (views.iter().enumerate())
        .filter(|(index, _)| *index != own)
        .filter_map(|(_, view)| view.list_query());
    for (_, model) in siblings {
        for member in &model.paged_members {
            let Some(arithmetic) = member.arithmetic else {
                continue;
            };
            match found
                .iter_mut()
                .find(|(pointer, _)| *pointer == member.pointer)
            {
                Some((_, agreed)) if *agreed != Some(arithmetic) => *agreed = None,
                Some(_) => {}
                None => found.push((member.pointer.clone(), Some(arithmetic))),
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(pointer, agreed)| Some((pointer, agreed?)))
        .collect()
}

/// Whether the model takes a page parameter and every line (some line at least) shows at
/// `pointer` the arithmetic's value for its page, size and matches.
fn shows(
    model: &QueryModel,
    lines: &[&Observation],
    pointer: &str,
    arithmetic: PageArithmetic,
) -> bool {
    let Some((page_name, first)) = page_parameter(model) else {
        return false;
    };
    let (Some(total), false) = (model.totals.first(), lines.is_empty()) else {
        return false;
    };
    lines.iter().all(|line| {
        let page = match value_of(line, &page_name) {
            Some(value) => value.parse().ok(),
            None => Some(first),
        };
        let size = line_size(model, line);
        let matched = number_at(line, total);
        let computed = page
            .zip(size)
            .zip(matched)
            .and_then(|((page, size), matched)| arithmetic.value((page, first), size, matched));
        computed.is_some_and(|computed| number_at(line, pointer) == Some(computed))
    })
}

/// The parameter the model takes as the page number, with the first page's number.
fn page_parameter(model: &QueryModel) -> Option<(String, u64)> {
    (model.parameters.iter())
        .chain(model.generalized.iter())
        .find_map(|(name, role)| match role {
            QueryRole::Page { base } => Some((name.clone(), *base)),
            _ => None,
        })
}

/// The page size a line asks for, else the list's default (learned, or the one value its size
/// member showed for lines asking none).
fn line_size(model: &QueryModel, line: &Observation) -> Option<u64> {
    let asked = (line.pairs().iter())
        .find(|(name, _)| model.role(name) == Some(&QueryRole::PageSize))
        .map(|(_, value)| value.parse().ok());
    match asked {
        Some(size) => size,
        None => model
            .default_page_size
            .map(u64::from)
            .or_else(|| shown_default_size(model)),
    }
}

/// The one value the model's size member showed for lines asking no size.
fn shown_default_size(model: &QueryModel) -> Option<u64> {
    let member = model.paged_members.iter().find(|member| member.size)?;
    let [default] = member.complete.as_slice() else {
        return None;
    };
    default.as_number()?.as_u64()
}

/// The value a line gives a parameter.
fn value_of<'l>(line: &'l Observation, name: &str) -> Option<&'l str> {
    (line.pairs().iter())
        .find(|(sent, _)| sent == name)
        .map(|(_, value)| value.as_str())
}

/// The whole number a line's body holds at a pointer.
fn number_at(line: &Observation, pointer: &str) -> Option<u64> {
    line.body.as_ref()?.pointer(pointer)?.as_number()?.as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::read_observation;

    /// A projects list paged by `page` and `per_page` whose matches its `total` member counts
    /// and whose `per_page` member shows 10 for lines asking no size.
    fn projects_model() -> QueryModel {
        let mut model = QueryModel::of_roles(&[
            ("page", QueryRole::Page { base: 1 }),
            ("per_page", QueryRole::PageSize),
        ]);
        model.totals = vec!["/meta/total".to_owned()];
        model.paged_members = vec![PagedMember::size_at(
            "/meta/per_page".to_owned(),
            Some(crate::test_support::parsed_json("10")),
            None,
        )];
        model
    }

    fn line(ordinal: u64, query: &[(&str, &str)], meta: &str) -> Observation {
        let body = format!(r#"{{"meta": {meta}, "projects": []}}"#);
        read_observation(ordinal, "/projects", query, &body)
    }

    #[test]
    fn first_pages_show_the_siblings_page_number_and_page_count() {
        let lines = [
            line(
                0,
                &[],
                r#"{"page": 1, "pages": 1, "per_page": 10, "total": 4}"#,
            ),
            line(
                1,
                &[("per_page", "2")],
                r#"{"page": 1, "pages": 2, "per_page": 2, "total": 4}"#,
            ),
        ];
        let lines: Vec<&Observation> = lines.iter().collect();
        let model = projects_model();
        assert!(shows(&model, &lines, "/meta/page", PageArithmetic::Number));
        assert!(shows(
            &model,
            &lines,
            "/meta/pages",
            PageArithmetic::PagesAtLeastOne
        ));
        assert_eq!(line_size(&model, lines[0]), Some(10));
        // A member showing another value, or a list taking no page number, takes nothing.
        assert!(!shows(
            &model,
            &lines,
            "/meta/per_page",
            PageArithmetic::Number
        ));
        let unpaged = QueryModel {
            parameters: [("per_page".to_owned(), QueryRole::PageSize)].into(),
            ..projects_model()
        };
        assert!(!shows(
            &unpaged,
            &lines,
            "/meta/page",
            PageArithmetic::Number
        ));
    }
}

//! A list's recorded refusal of a page number past its last page: the build called a list read
//! with one query parameter, the page number its query model reads (`page=9`), naming a page
//! after the last the list's entities fill at the page size its answered lines showed, and the
//! application answered a client error (`404 {"detail": "Invalid page."}`, Django REST
//! framework's page-number paging) instead of an empty page.
//!
//! Learned per list view ([`QueryModel::past_end_refusal`]: the refused read's record). Served
//! where the state evaluates a call of the list: a page number after the first page whose page
//! lists no entity answers that recorded refusal; the first page stays an empty page. A list
//! with no such recorded refusal answers the empty page, as before.

use rea_manifest::Manifest;

use crate::model::{Entity, QueryModel, QueryRole, ReadView, ViewDetail};
use crate::observation::{Observation, Timeline};

/// The page number a query names by a parameter the model reads as the page (with the first
/// page's number), when its value is a whole number.
pub fn named_page<'a>(
    model: &QueryModel,
    mut pairs: impl Iterator<Item = (&'a String, &'a String)>,
) -> Option<(u64, u64)> {
    pairs.find_map(|(name, value)| match model.parameters.get(name)? {
        QueryRole::Page { base } => Some((value.parse().ok()?, *base)),
        _ => None,
    })
}

/// Whether a page number lies after the last page `matched` entities fill at `size` a page
/// (the first page exists even when nothing matches).
pub fn past_last_page(page: u64, base: u64, matched: u64, size: u64) -> bool {
    let pages = matched.div_ceil(size.max(1)).max(1);
    page >= base.saturating_add(pages)
}

/// The refused read of one list view naming only a page past its last page, when the build
/// made one (see the module docs).
fn refused_page(
    observations: impl Iterator<Item = impl std::ops::Deref<Target = Observation>>,
    model: &QueryModel,
    matched: u64,
) -> Option<u64> {
    let size = u64::from(model.default_page_size?);
    observations
        .filter(|seen| (400..500).contains(&seen.status) && seen.body.is_some())
        .find(|seen| {
            let Some([(name, value)]) = seen.query.as_deref() else {
                return false;
            };
            named_page(model, std::iter::once((name, value))).is_some_and(|(page, base)| {
                page > base && past_last_page(page, base, matched, size)
            })
        })
        .map(|seen| seen.ordinal)
}

/// Sets each list view's [`QueryModel::past_end_refusal`] from its refused reads (see the
/// module docs), the page count taken from the entities the state holds of its type.
pub fn derive(
    manifest: &Manifest,
    timeline: &Timeline,
    entities: &[Entity],
    views: &mut [ReadView],
) {
    for view in views.iter_mut().filter(|view| view.method == "GET") {
        let Some(tool) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let ViewDetail::List(list) = &mut view.detail else {
            continue;
        };
        let entity_type = list.entity_type.clone();
        let Some(model) = list.query.as_mut() else {
            continue;
        };
        let matched = entities
            .iter()
            .filter(|entity| entity.entity_type == entity_type)
            .count() as u64;
        model.past_end_refusal = refused_page(timeline.all(tool), model, matched);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(size: Option<u32>) -> QueryModel {
        QueryModel {
            default_page_size: size,
            ..QueryModel::of_roles(&[
                ("page", QueryRole::Page { base: 1 }),
                ("status", QueryRole::filter("status", "eq")),
            ])
        }
    }

    fn refused(ordinal: u64, status: u16, query: &[(&str, &str)]) -> Observation {
        let mut seen = crate::test_support::read_observation(
            ordinal,
            "/tasks/",
            query,
            r#"{"detail": "Invalid page."}"#,
        );
        seen.status = status;
        seen
    }

    #[test]
    fn pages_after_the_last_are_past_it_and_the_first_never_is() {
        assert!(!past_last_page(2, 1, 14, 10));
        assert!(past_last_page(3, 1, 14, 10));
        assert!(!past_last_page(1, 1, 0, 10));
        assert!(past_last_page(2, 1, 0, 10));
        assert!(past_last_page(1, 0, 10, 10));
    }

    #[test]
    fn a_refused_page_past_the_last_is_learned_and_nothing_else() {
        let model = model(Some(10));
        let past = [refused(45, 404, &[("page", "9")])];
        assert_eq!(refused_page(past.iter(), &model, 14), Some(45));
        // Page 2 of 14 at 10 a page exists: its refusal says something else.
        let within = [refused(45, 404, &[("page", "2")])];
        assert_eq!(refused_page(within.iter(), &model, 14), None);
        // A page beside a filter, a success, or no page size learned teach nothing.
        let filtered = [refused(45, 404, &[("page", "9"), ("status", "open")])];
        assert_eq!(refused_page(filtered.iter(), &model, 14), None);
        let answered = [refused(45, 200, &[("page", "9")])];
        assert_eq!(refused_page(answered.iter(), &model, 14), None);
        assert_eq!(refused_page(past.iter(), &self::model(None), 14), None);
        let pairs = [("page".to_owned(), "3".to_owned())];
        assert_eq!(
            named_page(&model, pairs.iter().map(|(n, v)| (n, v))),
            Some((3, 1))
        );
    }
}

//! Paging members shared across a state's lists. One application writes every list's page
//! envelope alike, so the lists holding their items at one place (the same list pointer) agree
//! on what an envelope member holds: the page's offset or its size
//! ([`PagedMember::offset`], [`PagedMember::size`]).
//!
//! - A member one list learned in both roles (every line it answered asked for pages as long as
//!   their offsets: safrs' tasks paged `page[offset]=4&page[limit]=4`, so `meta.limit` showed
//!   both; tastypie's loans, `offset=4&limit=4`, so `meta.offset` did) takes the one role its
//!   sibling lists learned it in, where every sibling holding it learned that role alone
//!   ([`resolve_ambiguous`]): computed in both roles, the offset (set last) would show in a size
//!   member whenever the two differ.
//! - A list whose own lines never asked for another page than the first, so that its offset
//!   member showed the constant 0 and was never learned (Feathers' people beside its tasks'
//!   `skip`), is lent the offset member every sibling holding that member learned, where the
//!   list takes an offset parameter and every line it answered shows 0 there ([`lend_offsets`]).

use std::collections::BTreeSet;

use rea_manifest::Manifest;
use rea_plugin_api::json::Json;

use crate::model::{PagedMember, QueryModel, QueryRole, ReadView};
use crate::observation::{Observation, Timeline};
use crate::render::counts_canonically;

/// The role a paged member plays at its pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum PageRole {
    Offset,
    Size,
}

/// Shares the lists' offset and size members (see the module docs).
pub(super) fn share(manifest: &Manifest, timeline: &Timeline, views: &mut [ReadView]) {
    resolve_ambiguous(views);
    lend(manifest, timeline, views);
}

/// A list view's pointer and query model, if it has one.
fn list_model(view: &ReadView) -> Option<(&str, &QueryModel)> {
    view.list_query()
        .map(|(list, model)| (list.list_pointer.as_str(), model))
}

/// The roles a model's paged members play at a pointer.
fn roles_at(model: &QueryModel, pointer: &str) -> BTreeSet<PageRole> {
    let mut roles = BTreeSet::new();
    for member in model.paged_members.iter().filter(|m| m.pointer == pointer) {
        if member.offset {
            roles.insert(PageRole::Offset);
        }
        if member.size {
            roles.insert(PageRole::Size);
        }
    }
    roles
}

/// The one role the lists at `list_pointer` other than `own` hold `pointer` in, each alone;
/// `None` when none holds it, one holds it in both roles, or two disagree.
fn sibling_role(
    views: &[ReadView],
    own: usize,
    list_pointer: &str,
    pointer: &str,
) -> Option<PageRole> {
    let mut found: Option<PageRole> = None;
    for (index, view) in views.iter().enumerate() {
        let Some((at, model)) = list_model(view) else {
            continue;
        };
        if index == own || at != list_pointer {
            continue;
        }
        let roles = roles_at(model, pointer);
        match (roles.len(), found) {
            (0, _) => {}
            (1, None) => found = roles.first().copied(),
            (1, Some(role)) if roles.contains(&role) => {}
            _ => return None,
        }
    }
    found
}

/// Keeps, at each pointer a list holds in both roles, the role its siblings agree on.
fn resolve_ambiguous(views: &mut [ReadView]) {
    let mut resolved: Vec<(usize, String, PageRole)> = Vec::new();
    for (index, view) in views.iter().enumerate() {
        let Some((list_pointer, model)) = list_model(view) else {
            continue;
        };
        let pointers: BTreeSet<&str> = (model.paged_members.iter())
            .map(|member| member.pointer.as_str())
            .collect();
        for pointer in pointers {
            if roles_at(model, pointer).len() == 2
                && let Some(role) = sibling_role(views, index, list_pointer, pointer)
            {
                resolved.push((index, pointer.to_owned(), role));
            }
        }
    }
    for (index, pointer, role) in resolved {
        if let Some(model) = views[index].list_query_mut() {
            model.paged_members.retain(|member| {
                member.pointer != pointer
                    || match role {
                        PageRole::Offset => member.offset,
                        PageRole::Size => member.size,
                    }
            });
        }
    }
}

/// Lends the siblings' offset and size members to the lists that hold none at their pointers.
fn lend(manifest: &Manifest, timeline: &Timeline, views: &mut [ReadView]) {
    let mut lent: Vec<(usize, PagedMember)> = Vec::new();
    for (index, view) in views.iter().enumerate() {
        let Some((list_pointer, model)) = list_model(view) else {
            continue;
        };
        let Some(tool) = super::tool_index(manifest, &view.tool) else {
            continue;
        };
        let lines = super::shared_links::answered_lines(timeline, tool, model);
        for pointer in sibling_pointers(views, index, list_pointer) {
            if !roles_at(model, &pointer).is_empty() {
                continue;
            }
            let member = match sibling_role(views, index, list_pointer, &pointer) {
                Some(PageRole::Offset) => lent_offset(model, &lines, pointer),
                Some(PageRole::Size) => lent_size(model, &lines, pointer),
                None => None,
            };
            lent.extend(member.map(|member| (index, member)));
        }
    }
    for (index, member) in lent {
        if let Some(model) = views[index].list_query_mut() {
            model.paged_members.push(member);
        }
    }
}

/// The value a line gives its parameter playing a role, if any.
fn role_value<'l>(model: &QueryModel, line: &'l Observation, role: &QueryRole) -> Option<&'l str> {
    (line.pairs().iter())
        .find(|(name, _)| model.role(name) == Some(role))
        .map(|(_, value)| value.as_str())
}

/// The number a line shows at a pointer.
fn shown(line: &Observation, pointer: &str) -> Option<usize> {
    let value = line.body.as_ref()?.pointer(pointer)?;
    let text = crate::render::scalar_text(value)?;
    text.parse()
        .ok()
        .filter(|number| counts_canonically(value, *number))
}

/// An offset member at `pointer`, where the list takes an offset parameter and every line (some
/// line at least) shows there its offset (0 without one).
fn lent_offset(model: &QueryModel, lines: &[&Observation], pointer: String) -> Option<PagedMember> {
    if !takes(model, &QueryRole::Offset) || lines.is_empty() {
        return None;
    }
    let shows_offsets = lines.iter().all(|line| {
        let offset =
            role_value(model, line, &QueryRole::Offset).map_or(Some(0), |v| v.parse().ok());
        offset.is_some() && shown(line, &pointer) == offset
    });
    shows_offsets.then(|| PagedMember::offset_at(pointer))
}

/// A size member at `pointer`, where the list takes a page-size parameter, every line giving a
/// size shows it there and every line giving none one default value (its `complete`).
fn lent_size(model: &QueryModel, lines: &[&Observation], pointer: String) -> Option<PagedMember> {
    if !takes(model, &QueryRole::PageSize) || lines.is_empty() {
        return None;
    }
    let mut default: Option<(usize, &Json)> = None;
    for line in lines {
        let number = shown(line, &pointer)?;
        match role_value(model, line, &QueryRole::PageSize) {
            Some(size) if size.parse::<usize>().ok() == Some(number) => {}
            Some(_) => return None,
            None if default.is_none_or(|(value, _)| value == number) => {
                default = Some((number, line.body.as_ref()?.pointer(&pointer)?));
            }
            None => return None,
        }
    }
    let default = default.map(|(_, value)| value.clone());
    Some(PagedMember::size_at(pointer, default, None))
}

/// Whether a model takes a parameter in a role (its own or the query grammar's).
fn takes(model: &QueryModel, role: &QueryRole) -> bool {
    (model.parameters.values())
        .chain(model.generalized.values())
        .any(|taken| taken == role)
}

/// The pointers of the paged members the other lists at `list_pointer` hold.
fn sibling_pointers(views: &[ReadView], own: usize, list_pointer: &str) -> BTreeSet<String> {
    (views.iter().enumerate())
        .filter(|(index, _)| *index != own)
        .filter_map(|(_, view)| list_model(view))
        .filter(|(at, _)| *at == list_pointer)
        .flat_map(|(_, model)| model.paged_members.iter().map(|m| m.pointer.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::read_observation;

    fn paging_model() -> QueryModel {
        QueryModel::of_roles(&[("skip", QueryRole::Offset), ("limit", QueryRole::PageSize)])
    }

    #[test]
    fn an_offset_member_is_lent_where_every_line_shows_its_offset() {
        let lines = [
            read_observation(0, "/people", &[], r#"{"skip": 0, "data": []}"#),
            read_observation(1, "/people", &[("skip", "0")], r#"{"skip": 0, "data": []}"#),
        ];
        let lines: Vec<&Observation> = lines.iter().collect();
        let lent = lent_offset(&paging_model(), &lines, "/skip".to_owned()).expect("lent");
        assert!(lent.offset && !lent.size && lent.complete.is_empty());
        // A line showing another number there, or a list taking no offset, borrows nothing.
        let other = read_observation(2, "/people", &[], r#"{"skip": 3, "data": []}"#);
        let mut shown = lines.clone();
        shown.push(&other);
        assert!(lent_offset(&paging_model(), &shown, "/skip".to_owned()).is_none());
        let no_offset = QueryModel::of_roles(&[("limit", QueryRole::PageSize)]);
        assert!(lent_offset(&no_offset, &lines, "/skip".to_owned()).is_none());
        assert!(lent_offset(&paging_model(), &[], "/skip".to_owned()).is_none());
    }

    #[test]
    fn a_size_member_is_lent_with_the_default_the_lines_giving_none_show() {
        let lines = [
            read_observation(0, "/loans", &[], r#"{"meta": {"limit": 4}, "objects": []}"#),
            read_observation(1, "/loans", &[("limit", "2")], r#"{"meta": {"limit": 2}}"#),
            read_observation(2, "/loans", &[("skip", "4")], r#"{"meta": {"limit": 4}}"#),
        ];
        let lines: Vec<&Observation> = lines.iter().collect();
        let lent = lent_size(&paging_model(), &lines, "/meta/limit".to_owned()).expect("lent");
        assert!(lent.size && !lent.offset);
        assert_eq!(lent.complete, [Json::Number(4u64.into())]);
        // Two defaults, or a line not showing the size it gave, lend nothing.
        let two = read_observation(3, "/loans", &[], r#"{"meta": {"limit": 5}}"#);
        let wrong = read_observation(3, "/loans", &[("limit", "3")], r#"{"meta": {"limit": 4}}"#);
        for odd in [&two, &wrong] {
            let mut shown = lines.clone();
            shown.push(odd);
            assert!(lent_size(&paging_model(), &shown, "/meta/limit".to_owned()).is_none());
        }
    }
}

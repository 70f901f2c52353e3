//! A list's default page: an argument-less read of a list that answers only the first entities of
//! its collection, in the state's order, while its envelope counts the whole collection
//! (`{"total": 14, "limit": 10, "skip": 0, "data": [10 tasks]}`), shows a page the application
//! cuts at a default size, not a collection its plain list leaves entities out of. Such a line
//! leaves nothing out (`lists::list_line`), and the list's query model pages every call naming no
//! page size at that size (`QueryModel::default_page_size`), learned where every such line of the
//! list shows one size (two apps: FeathersJS's paginated services, `paginate: {default: 10}`).
//! An envelope holding no count shows it too when it holds the number listed under a page size's
//! name (`"limit": 10`, the bound applied: pyramid-jsonapi's `meta.results`), or when a line of the list asking only for the second
//! page (a name proposing a page role, the value `2`) lists as many other entities of the
//! collection as follow a page of that size (PiccoloCRUD's `{"rows": […]}` walked by `__page`).
//! A page size no bound at all is spelled by ([`unbounded_size`]) is the value a line asking
//! only for that size answered with more entities than it says (`limit=0` listing all fourteen:
//! django-tastypie's "no limit").

use rea_plugin_api::json::Json;

use super::entities::Entities;
use super::lists::{ListPlan, listed_collection};
use crate::observation::Observation;

/// The default page size an argument-less line shows: the number of entities it listed, when
/// they are a proper, non-empty prefix of its collection in the state's order and a number of
/// its envelope holds the collection's size, or one of the list's `lines` asking for the second
/// page lists what follows ([`continued`]); `None` otherwise.
pub(crate) fn shown_size(
    line: &Observation,
    plan: &ListPlan,
    entities: &Entities,
    lines: &[&Observation],
) -> Option<u64> {
    if !line.pairs().is_empty() {
        return None;
    }
    let listed = plan.members.get(&line.ordinal)?;
    let collection = listed_collection(&line.path, &plan.entity_type)?;
    let collection = entities.collection(&plan.entity_type, &collection);
    let part = !listed.is_empty() && listed.len() < collection.len();
    let prefix = part && collection[..listed.len()] == listed[..];
    let body = line.body.as_ref()?;
    let shown = (prefix
        && (counts_collection(body, &plan.list_pointer, collection.len())
            || names_its_limit(body, &plan.list_pointer, listed.len())))
        || (part && continued(lines, plan, (collection, listed)));
    shown.then_some(listed.len() as u64)
}

/// Whether one of `lines` asks only for the second page (one pair: a name proposing a page
/// role numbered from 1, the value `2`) and lists as many other entities of `collection` as
/// follow the first page's `listed` (a page's worth, or the rest), in whatever order.
fn continued(
    lines: &[&Observation],
    plan: &ListPlan,
    (collection, listed): (&[usize], &[usize]),
) -> bool {
    let following = listed.len().min(collection.len() - listed.len());
    lines.iter().any(|other| {
        let [(name, value)] = other.pairs() else {
            return false;
        };
        value == "2"
            && crate::query::candidate_roles(name, &|_| false)
                .contains(&crate::model::QueryRole::Page { base: 1 })
            && plan.members.get(&other.ordinal).is_some_and(|second| {
                second.len() == following
                    && second
                        .iter()
                        .all(|index| collection.contains(index) && !listed.contains(index))
            })
    })
}

/// Whether an envelope holds, beside the list, a number equal to `size`: at its top level
/// (`{"total": 14, "data": […]}`) or inside an object member beside the list (`{"meta":
/// {"total_count": 14}, "objects": […]}`); never inside an array.
fn counts_collection(body: &Json, list_pointer: &str, size: usize) -> bool {
    beside_list(body, list_pointer).any(|(_, value)| holds_number(value, size as u64))
}

/// Whether the envelope holds, under a page size's name (`limit`, `per_page`, …; at any depth,
/// arrays not entered), the number of entities the line listed: the bound the application
/// applied, where it counts no collection (pyramid-jsonapi's `meta.results.limit` beside
/// `returned`, its `available` null).
fn names_its_limit(body: &Json, list_pointer: &str, listed: usize) -> bool {
    fn named(name: &str, value: &Json, listed: u64) -> bool {
        match value {
            Json::Object(members) => members
                .iter()
                .any(|(name, member)| named(name, member, listed)),
            number => {
                crate::query::spelled_in(&crate::query::PAGE_SIZE_NAMES, name)
                    && number.as_number().and_then(|number| number.as_u64()) == Some(listed)
            }
        }
    }
    beside_list(body, list_pointer).any(|(name, value)| named(name, value, listed as u64))
}

/// An envelope's members beside its list (the top-level member holding it left out); none for
/// a body that is no object.
fn beside_list<'b>(
    body: &'b Json,
    list_pointer: &str,
) -> impl Iterator<Item = (&'b str, &'b Json)> {
    let list_member = list_pointer
        .trim_start_matches('/')
        .split('/')
        .next()
        .map(str::to_owned);
    body.as_object()
        .into_iter()
        .flat_map(|envelope| envelope.iter())
        .filter(move |(name, _)| Some(*name) != list_member.as_deref())
}

/// Whether `value` is the number `size`, or an object holding it at some depth (arrays not
/// entered).
fn holds_number(value: &Json, size: u64) -> bool {
    match value {
        Json::Object(members) => members.iter().any(|(_, member)| holds_number(member, size)),
        other => other.as_number().and_then(|number| number.as_u64()) == Some(size),
    }
}

/// The default page size of a list: the one size every argument-less line of it showing a
/// default page shows (see [`shown_size`]); `None` when none shows one or two disagree.
pub(crate) fn learned(lines: &[&Observation], plan: &ListPlan, entities: &Entities) -> Option<u32> {
    let mut sizes = lines
        .iter()
        .filter_map(|line| shown_size(line, plan, entities, lines));
    let size = sizes.next()?;
    let agreed = sizes.all(|other| other == size).then_some(size)?;
    u32::try_from(agreed).ok()
}

/// The page size value that asks for no bound: the one value of a line naming nothing but a
/// page-size name (`limit=0`) that listed more entities than that value, every entity of its
/// collection (in the state's order); `None` when no line, or lines with two such values, show
/// one.
pub(crate) fn unbounded_size(
    lines: &[&Observation],
    plan: &ListPlan,
    entities: &Entities,
) -> Option<u32> {
    let mut values = lines.iter().filter_map(|line| {
        let [(name, value)] = line.pairs() else {
            return None;
        };
        let size: u32 = value.parse().ok()?;
        if size.to_string() != *value {
            return None;
        }
        if !crate::query::spelled_in(&crate::query::PAGE_SIZE_NAMES, name) {
            return None;
        }
        let listed = plan.members.get(&line.ordinal)?;
        let collection = listed_collection(&line.path, &plan.entity_type)?;
        let collection = entities.collection(&plan.entity_type, &collection);
        (listed.len() > size as usize && collection[..] == listed[..]).then_some(size)
    });
    let value = values.next()?;
    values.all(|other| other == value).then_some(value)
}

/// The default sort of a list: `-F`, where `F` is the field holding each listed entity's
/// identity, when the argument-less line (followed, where the list's default page was learned
/// from a continuing page, by the second page) lists the identities as more than two strictly
/// decreasing numbers (newest first); `None` otherwise. A list with no default page shows it by
/// its argument-less line alone (PiccoloCRUD's people, every one on one page, id descending).
pub(crate) fn learned_sort(
    lines: &[&Observation],
    plan: &ListPlan,
    entities: &Entities,
) -> Option<String> {
    let first = lines.iter().find(|line| line.pairs().is_empty())?;
    let mut shown = vec![first];
    if learned(lines, plan, entities).is_some() {
        shown.push(lines.iter().find(|line| {
            matches!(line.pairs(), [(name, value)] if value == "2"
                && crate::query::candidate_roles(name, &|_| false)
                    .contains(&crate::model::QueryRole::Page { base: 1 }))
        })?);
    }
    let listed: Vec<usize> = shown
        .iter()
        .filter_map(|line| plan.members.get(&line.ordinal))
        .flatten()
        .copied()
        .collect();
    descending_identity(&listed, entities)
}

/// `-F` when the `listed` entities' identities are more than two strictly decreasing numbers,
/// each held by the member `F`.
fn descending_identity(listed: &[usize], entities: &Entities) -> Option<String> {
    let numbers: Option<Vec<i64>> = listed
        .iter()
        .map(|index| entities.list[*index].id.parse().ok())
        .collect();
    let numbers = numbers?;
    let descending = numbers.len() > 2 && numbers.windows(2).all(|pair| pair[0] > pair[1]);
    let Json::Object(fields) = &entities.list[*listed.first()?].fields else {
        return None;
    };
    let identity = fields.iter().find_map(|(name, value)| {
        let holds = |index: &usize| {
            matches!(&entities.list[*index].fields, Json::Object(object)
                if object.get(name).and_then(|held| held.as_number()).map(|number| number.to_string())
                    == Some(entities.list[*index].id.clone()))
        };
        (value.as_number().is_some() && listed.iter().all(holds)).then(|| name.to_string())
    })?;
    descending.then(|| format!("-{identity}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn a_page_size_named_beside_the_list_holding_the_count_listed_is_its_bound() {
        let body = json(
            r#"{"meta": {"results": {"available": null, "limit": 10, "returned": 10}}, "data": []}"#,
        );
        assert!(names_its_limit(&body, "/data", 10));
        assert!(!names_its_limit(&body, "/data", 9));
        // At the top level too; a number named otherwise, or inside an array, is no bound.
        assert!(names_its_limit(
            &json(r#"{"limit": 3, "rows": []}"#),
            "/rows",
            3
        ));
        let other = json(r#"{"meta": {"returned": 10}, "limit": [10], "data": []}"#);
        assert!(!names_its_limit(&other, "/data", 10));
    }

    #[test]
    fn a_number_beside_the_list_counts_the_collection() {
        let body = json(r#"{"total": 14, "limit": 10, "skip": 0, "data": [1, 2]}"#);
        assert!(counts_collection(&body, "/data", 14));
        assert!(!counts_collection(&body, "/data", 12));
        // A count in an object beside the list (tastypie's `meta.total_count`) counts too.
        let nested = json(r#"{"meta": {"limit": 5, "total_count": 14}, "objects": [1, 2]}"#);
        assert!(counts_collection(&nested, "/objects", 14));
        assert!(!counts_collection(&nested, "/objects", 13));
        // The list itself, a number inside an array or a root array count nothing.
        let listed = json(r#"{"data": {"count": 14, "items": []}, "pages": [14]}"#);
        assert!(!counts_collection(&listed, "/data/items", 14));
        assert!(!counts_collection(&json("[1, 2]"), "", 2));
    }

    /// The default sort the posts list learned from a plain line listing `order` (ids) and a
    /// line filtering by author.
    fn default_sort_of(order: [usize; 3]) -> Option<String> {
        use crate::derive::tests::{derive, posts, record};
        use serde_json::json;
        let listed: Vec<serde_json::Value> =
            order.iter().map(|id| posts()[id - 1].clone()).collect();
        let alice: Vec<serde_json::Value> = listed
            .iter()
            .filter(|post| post["author"] == "alice")
            .cloned()
            .collect();
        let fixture = derive(vec![
            record(0, "GET", "/posts", 200, json!(listed)),
            record(1, "GET", "/posts?author=alice", 200, json!(alice)),
        ]);
        match fixture.view("get_posts") {
            crate::model::ViewDetail::List(list) => list
                .query
                .as_ref()?
                .default_sort
                .as_deref()
                .map(str::to_owned),
            other => panic!("a list view: {other:?}"),
        }
    }

    #[test]
    fn a_plain_line_listing_every_entity_newest_first_is_the_default_sort() {
        assert_eq!(default_sort_of([3, 2, 1]).as_deref(), Some("-id"));
        // Oldest first, or in no order of the identity: none.
        assert_eq!(default_sort_of([1, 2, 3]), None);
        assert_eq!(default_sort_of([2, 3, 1]), None);
    }
}

//! A list's default page: an argument-less read of a list that answers only the first entities of
//! its collection, in the state's order, while its envelope counts the whole collection
//! (`{"total": 14, "limit": 10, "skip": 0, "data": [10 tasks]}`), shows a page the application
//! cuts at a default size, not a collection its plain list leaves entities out of. Such a line
//! leaves nothing out (`lists::list_line`), and the list's query model pages every call naming no
//! page size at that size (`QueryModel::default_page_size`), learned where every such line of the
//! list shows one size (two apps: FeathersJS's paginated services, `paginate: {default: 10}`).

use rea_plugin_api::json::Json;

use super::entities::Entities;
use super::lists::{ListPlan, listed_collection};
use crate::observation::Observation;

/// The default page size an argument-less line shows: the number of entities it listed, when
/// they are a proper, non-empty prefix of its collection in the state's order and a
/// number of its envelope holds the collection's size; `None` otherwise.
pub(crate) fn shown_size(line: &Observation, plan: &ListPlan, entities: &Entities) -> Option<u64> {
    if !line.pairs().is_empty() {
        return None;
    }
    let listed = plan.members.get(&line.ordinal)?;
    let collection = listed_collection(&line.path, &plan.entity_type)?;
    let collection = entities.collection(&plan.entity_type, &collection);
    let prefix = !listed.is_empty()
        && listed.len() < collection.len()
        && collection[..listed.len()] == listed[..];
    (prefix && counts_collection(line.body.as_ref()?, &plan.list_pointer, collection.len()))
        .then_some(listed.len() as u64)
}

/// Whether an envelope holds, beside the list, a number equal to `size`: at its top level
/// (`{"total": 14, "data": […]}`) or inside an object member beside the list (`{"meta":
/// {"total_count": 14}, "objects": […]}`); never inside an array.
fn counts_collection(body: &Json, list_pointer: &str, size: usize) -> bool {
    let Json::Object(envelope) = body else {
        return false;
    };
    let list_member = list_pointer.trim_start_matches('/').split('/').next();
    envelope
        .iter()
        .any(|(name, value)| Some(name) != list_member && holds_number(value, size as u64))
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
pub(crate) fn learned(lines: &[&Observation], plan: &ListPlan, entities: &Entities) -> Option<u64> {
    let mut sizes = lines
        .iter()
        .filter_map(|line| shown_size(line, plan, entities));
    let size = sizes.next()?;
    sizes.all(|other| other == size).then_some(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

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
}

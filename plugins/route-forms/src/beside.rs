//! Rule 5 of `listed-id` ([`crate::listed`]), *listed beside its siblings*: a literal segment
//! whose value a recorded listing names beside values a sibling route's parameter took there is
//! one more value of that parameter, so a collection the build created or read under one name only
//! (`PUT /loans`, `GET /loans/_all_docs` beside `GET /{db}` and `GET /{db}/_all_docs` of `library`
//! and `members`, all three named by the `GET /_all_dbs` answer) joins the tools of its siblings.
//!
//! A literal segment at position `p` (any position, the first included) of route `R` takes a form
//! when:
//! 1. sibling routes (the same number of segments, equal to `R` at every other position: literal
//!    segments equal, parameters of equal forms) hold a whole-segment parameter at `p` (no prefix
//!    or suffix) that took at least two distinct values there, and
//! 2. one recorded 2xx JSON answer of a `GET` holds, inside one array (the items' pointers equal
//!    but for their array index), `R`'s decoded value at `p` and at least two of those values.
//!
//! 3. its 2xx JSON answer (if it has one) has the shape of each sibling's of its method that
//!    answered JSON: the same kind, and more than half the top-level members and the members of
//!    the items it lists shared (an insert answering `{"ok": true}` where its siblings' answered
//!    `{"ok": true, "rows": [...]}`, or a table whose rows hold other columns, keeps its own
//!    tools: its writes are learned apart).
//!
//! The form is the one most siblings of `R`'s method hold (the first in form order among equals),
//! and when no sibling has that method, the one most siblings of any method hold: a write to a
//! collection the recording names so (`PUT /loans`, a create) is one more call of its family's
//! template, whatever method its siblings were recorded with.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_plugin_api::contracts::route::SegmentForm;

use crate::routes::{Routes, Token, most_common};

/// Per sibling family (segment count, position, the other tokens): the routes holding a
/// whole-segment parameter there.
type Families<'a> = BTreeMap<(usize, usize, Vec<Token<'a>>), Vec<usize>>;

/// The changes rule 5 proposes (see the module docs), for segments still literal.
pub(crate) fn listed_beside(routes: &Routes<'_>) -> Vec<(usize, usize, SegmentForm)> {
    let families = parameter_families(routes);
    if families.is_empty() {
        return Vec::new();
    }
    let listings = Listings::new(routes);
    let mut changes = Vec::new();
    for (index, route) in routes.routes.iter().enumerate() {
        for position in 0..route.segments.len() {
            if !routes.open(index, position) {
                continue;
            }
            let key = (
                route.segments.len(),
                position,
                routes.others(index, position),
            );
            let Some(siblings) = families.get(&key) else {
                continue;
            };
            let value = route.decoded[position].as_str();
            let taken: BTreeSet<&str> = siblings
                .iter()
                .map(|&sibling| routes.routes[sibling].decoded[position].as_str())
                .filter(|taken| *taken != value)
                .collect();
            if taken.len() >= 2
                && listings.beside(value, &taken)
                && shapes_agree(routes, index, siblings)
                && let Some(form) = sibling_form(routes, siblings, &route.method, position)
            {
                changes.push((index, position, form));
            }
        }
    }
    changes
}

/// Whether route `index` answers in the shape of its siblings of its method: the kind, and more
/// than half the top-level members and the listed items' members shared (see
/// [`members_agree`]) with each of them that answered JSON.
fn shapes_agree(routes: &Routes<'_>, index: usize, siblings: &[usize]) -> bool {
    let mine = &routes.routes[index];
    let Some(kind) = mine.answer.json.as_deref() else {
        return true;
    };
    siblings
        .iter()
        .map(|&sibling| &routes.routes[sibling])
        .filter(|sibling| sibling.method.eq_ignore_ascii_case(&mine.method))
        .filter(|sibling| sibling.answer.json.is_some())
        .all(|sibling| {
            sibling.answer.json.as_deref() == Some(kind)
                && members_agree(&mine.answer.members, &sibling.answer.members)
                && members_agree(&mine.answer.item_members, &sibling.answer.item_members)
        })
}

/// Whether two member lists share more than half their union (an empty one agrees with any).
fn members_agree(one: &[CompactString], other: &[CompactString]) -> bool {
    if one.is_empty() || other.is_empty() {
        return true;
    }
    let one: BTreeSet<&CompactString> = one.iter().collect();
    let other: BTreeSet<&CompactString> = other.iter().collect();
    one.intersection(&other).count() * 2 > one.union(&other).count()
}

/// The routes holding a whole-segment parameter, by sibling family.
fn parameter_families<'a>(routes: &Routes<'a>) -> Families<'a> {
    let mut families: Families<'a> = BTreeMap::new();
    for (index, route) in routes.routes.iter().enumerate() {
        for (position, form) in routes.forms_of(index).enumerate() {
            let whole = form.is_some_and(|form| form.prefix.is_empty() && form.suffix.is_empty());
            if whole {
                let key = (
                    route.segments.len(),
                    position,
                    routes.others(index, position),
                );
                families.entry(key).or_default().push(index);
            }
        }
    }
    families
}

/// The form most siblings of `method` hold at `position`, or most siblings of any method when
/// none has it.
fn sibling_form(
    routes: &Routes<'_>,
    siblings: &[usize],
    method: &str,
    position: usize,
) -> Option<SegmentForm> {
    let count = |same_method: bool| {
        let mut counts: BTreeMap<SegmentForm, usize> = BTreeMap::new();
        for &sibling in siblings {
            let matches = routes.routes[sibling].method.eq_ignore_ascii_case(method);
            if let (true, Some(form)) = (matches || !same_method, routes.form(sibling, position)) {
                *counts.entry(form.clone()).or_default() += 1;
            }
        }
        most_common(counts)
    };
    count(true).or_else(|| count(false))
}

/// The arrays recorded `GET` answers list texts in: per text, the arrays holding it.
struct Listings<'a> {
    /// Per text, the arrays (by number) whose items hold it.
    arrays_of: HashMap<&'a str, BTreeSet<usize>>,
    /// Per array, the texts its items hold.
    texts: Vec<BTreeSet<&'a str>>,
}

impl<'a> Listings<'a> {
    fn new(routes: &Routes<'a>) -> Self {
        let mut numbered: HashMap<(usize, String), usize> = HashMap::new();
        let mut listings = Self {
            arrays_of: HashMap::new(),
            texts: Vec::new(),
        };
        for (index, route) in routes.routes.iter().enumerate() {
            if !route.method.eq_ignore_ascii_case("GET") || route.answer.json.is_none() {
                continue;
            }
            for held in route.answer.values.iter().filter(|held| held.in_array) {
                let Some(array) = array_pattern(&held.pointer) else {
                    continue;
                };
                let next = numbered.len();
                let number = *numbered.entry((index, array)).or_insert(next);
                if number == listings.texts.len() {
                    listings.texts.push(BTreeSet::new());
                }
                listings.texts[number].insert(held.text.as_str());
                listings
                    .arrays_of
                    .entry(held.text.as_str())
                    .or_default()
                    .insert(number);
            }
        }
        listings
    }

    /// Whether one array holds `value` and at least two of `taken`.
    fn beside(&self, value: &str, taken: &BTreeSet<&str>) -> bool {
        self.arrays_of.get(value).is_some_and(|arrays| {
            arrays
                .iter()
                .any(|array| self.texts[*array].intersection(taken).count() >= 2)
        })
    }
}

/// A pointer with its last array index replaced by `*` (`/rows/3/id` → `/rows/*/id`, `/2` →
/// `/*`): the items of one array share it.
fn array_pattern(pointer: &str) -> Option<String> {
    let tokens: Vec<&str> = pointer.split('/').collect();
    let last_index = tokens
        .iter()
        .rposition(|token| !token.is_empty() && token.bytes().all(|byte| byte.is_ascii_digit()))?;
    let mut pattern = tokens;
    pattern[last_index] = "*";
    Some(pattern.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::testing::route;
    use rea_plugin_api::contracts::route::{RecordedRoute, RouteFormRequest};

    fn request(routes: Vec<RecordedRoute>) -> RouteFormRequest {
        RouteFormRequest {
            options: Default::default(),
            routes,
            schema_version: 1,
        }
    }

    /// `GET /{db}` and `GET /{db}/_all_docs` of `library` and `members`, a `GET /_all_dbs`
    /// listing `names`, and the given routes after them.
    fn databases(names: &[&str], more: Vec<RecordedRoute>) -> Vec<RecordedRoute> {
        let database = Some(SegmentForm::whole("sibling-variance"));
        let mut routes = Vec::new();
        for name in ["library", "members"] {
            let mut read = route("GET", &format!("/{name}"), Some(&[]));
            read.forms[0] = database.clone();
            let mut all = route("GET", &format!("/{name}/_all_docs"), Some(&[]));
            all.forms[0] = database.clone();
            routes.extend([read, all]);
        }
        let pointers: Vec<String> = (0..names.len()).map(|at| format!("/{at}")).collect();
        let listed: Vec<(&str, &str)> = pointers
            .iter()
            .map(String::as_str)
            .zip(names.iter().copied())
            .collect();
        routes.push(route("GET", "/_all_dbs", Some(&listed)));
        routes.extend(more);
        routes
    }

    fn changes(routes: Vec<RecordedRoute>) -> Vec<(usize, usize, String)> {
        let request = request(routes);
        let routes = Routes::new(&request);
        listed_beside(&routes)
            .into_iter()
            .map(|(route, segment, form)| (route, segment, form.placeholder()))
            .collect()
    }

    #[test]
    fn a_collection_listed_beside_its_siblings_takes_their_form_at_any_method() {
        let changes = changes(databases(
            &["library", "loans", "members"],
            vec![
                route("PUT", "/loans", None),
                route("GET", "/loans/_all_docs", Some(&[])),
                route("GET", "/loans/_changes", Some(&[])),
            ],
        ));
        let database = "{sibling-variance}".to_owned();
        assert_eq!(
            changes,
            vec![(5, 0, database.clone()), (6, 0, database)],
            "_changes has no sibling holding a parameter; _all_dbs is no listed name"
        );
    }

    #[test]
    fn a_value_listed_apart_from_its_siblings_or_beside_one_stays_literal() {
        // `loans` listed in another array than the databases.
        let mut apart = databases(&["library", "members"], vec![route("PUT", "/loans", None)]);
        apart.push(route("GET", "/_stats", Some(&[("/queues/0", "loans")])));
        assert_eq!(changes(apart), Vec::new());
        let beside_one = databases(&["library", "loans"], vec![route("PUT", "/loans", None)]);
        assert_eq!(changes(beside_one), Vec::new());
    }

    #[test]
    fn a_collection_answering_items_of_another_shape_stays_literal() {
        let shaped = |mut read: RecordedRoute, members: &[&str]| {
            read.answer.members = vec!["ok".into(), "rows".into()];
            read.answer.item_members = members.iter().map(|member| (*member).into()).collect();
            read
        };
        let tasks = ["id", "status", "title"];
        let mut routes = databases(
            &["library", "loans", "members", "tags"],
            vec![
                shaped(
                    route("GET", "/loans/_all_docs", Some(&[])),
                    &["id", "title", "status", "due"],
                ),
                shaped(
                    route("GET", "/tags/_all_docs", Some(&[])),
                    &["tag", "task_id"],
                ),
            ],
        );
        for sibling in [1, 3] {
            routes[sibling] = shaped(routes[sibling].clone(), &tasks);
        }
        assert_eq!(
            changes(routes),
            vec![(5, 0, "{sibling-variance}".to_owned())]
        );
    }

    #[test]
    fn array_patterns_replace_the_last_index() {
        assert_eq!(array_pattern("/rows/3/id").as_deref(), Some("/rows/*/id"));
        assert_eq!(array_pattern("/2").as_deref(), Some("/*"));
        assert_eq!(array_pattern("/0/tags/1").as_deref(), Some("/0/tags/*"));
        assert_eq!(array_pattern("/name"), None);
    }
}

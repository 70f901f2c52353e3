//! `listed-id`: an item segment the recording named once, in no format a rule knows (`a2`,
//! `Call the plumber`), is a parameter when the recording shows it is an id, so one tool serves
//! every item of its collection, not only the one the build read, wrote or deleted.
//!
//! 1. Listed by its collection: a literal segment at position `p ≥ 1` whose decoded value a
//!    recorded 2xx JSON answer of a `GET` at the route's first `p` segments (the collection,
//!    literal as the route spells them) holds as a member of an array's item (`/1/id`,
//!    `/rows/0/name`), and which the route's own 2xx JSON answer names by that same member (`{"id":
//!    "a2"}`), or whose records answered no JSON (a `DELETE` answering 204). `/agents/a2` beside
//!    the listing `/agents` holding `{"id": "a2"}`.
//! 2. Named through a sibling route: a literal segment at position `p` whose decoded value a
//!    parameter at `p` of another route took, that route being of the same length and equal to this
//!    one at every other position but one earlier literal one (`DELETE /bags/b/tiddlers/Call the
//!    plumber` beside the recorded `PUT` and `GET /recipes/b/tiddlers/{title}` of `Call the
//!    plumber`): the segment takes that parameter's form.
//! 3. Named by an item route: a literal segment at position `p`, not the route's last, whose
//!    decoded value a parameter at `p` of a shorter route spells or took, that route equal to
//!    this one at every other position it has (`POST /tracker/task_tags/6,infra/-/delete` beside
//!    `GET /tracker/task_tags/{…}.json` that took `6,infra`; `DELETE /{…}/-/pkg-1.0.0.tgz/-rev/{…}`
//!    beside `GET /{…}/-/pkg-{…}.tgz`; `PUT /-/package/p/dist-tags/legacy` beside `GET
//!    /-/package/{…}/dist-tags`): the route is an action or sub-resource of that item, and the
//!    segment takes the item parameter's form when it spells the same segment, its rule as a
//!    whole segment when it is the value the parameter took.
//! 4. Ids of an item elsewhere: a literal segment at position `p ≥ 1`, not the route's last,
//!    whose sibling routes (of the same length, equal at every other position) hold at least two
//!    distinct values there, every one of them a value the whole-segment parameter of an item
//!    route (a route whose last segment is a parameter) took (`/-/package/date-helpers/dist-tags`
//!    and `/-/package/@corp%2fui-kit/dist-tags` beside `GET /{name}` of both): the segments take
//!    that parameter's form. Checked first, so rule 3 sees the routes it made.
//! 5. Listed beside its siblings ([`crate::beside`]): a literal segment at any position whose
//!    value a recorded listing names in one array beside at least two values a sibling route's
//!    whole-segment parameter took there (`PUT /loans` beside `GET /{db}` of `library` and
//!    `members`, all three listed by `GET /_all_dbs`): the segment takes that parameter's form.
//!    Checked after rule 4, before the others, so they see the routes it made.
//! 6. One more call of a family ([`crate::family`]): a route whose every literal segment sits
//!    where a family of routes (its method, its length, one template) holds a whole-segment
//!    parameter, each value shown to be an id (a parameter took it at that position, or an answer
//!    names it as a map's key), takes the family's forms (`GET /@corp%2Fui-kit/2.0.0-beta.1`
//!    beside `GET /{name}/{version}`). Checked after rule 5.
//!
//! A rule-1 parameter takes the form its sibling routes hold at that position (routes of the same
//! length equal elsewhere), as `folder-tree` does, and otherwise the whole-segment rule
//! `listed-id`.

use rea_plugin_api::contracts::capture::CompactString;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_plugin_api::contracts::route::{
    ActionRouteOutcome, ActionRouteRequest, RecordedRoute, RouteFormOutcome, RouteFormRequest,
    SegmentForm,
};
use rea_plugin_api::{PluginError, RouteForm};

use crate::folder::sibling_form;
use crate::multi_index::MultiIndex;
use crate::routes::{Routes, Token, families, most_common};

/// The stage's name, also the rule of its parameters that take no sibling's form.
pub const LISTED_ID: &str = "listed-id";

/// `listed-id` (see the module docs).
pub struct ListedId;

impl RouteForm for ListedId {
    /// Action routes: see [`crate::action`].
    fn actions(&self, request: &ActionRouteRequest) -> Result<ActionRouteOutcome, PluginError> {
        Ok(crate::action::action_routes(request))
    }

    fn apply(&self, request: &RouteFormRequest) -> Result<RouteFormOutcome, PluginError> {
        let mut routes = Routes::new(request);
        for (index, position, form) in ids_of_items_elsewhere(&routes) {
            routes.set(index, position, &form);
        }
        for (index, position, form) in crate::beside::listed_beside(&routes) {
            routes.set(index, position, &form);
        }
        for (index, position, form) in crate::family::joins_family(&routes) {
            routes.set(index, position, &form);
        }
        let lookup = Lookup::new(&routes);
        let mut changes: Vec<(usize, usize, SegmentForm)> = Vec::new();
        for index in 0..routes.routes.len() {
            for position in 1..routes.routes[index].segments.len() {
                if !routes.open(index, position) {
                    continue;
                }
                let form = if listed_by_collection(&routes, &lookup, index, position) {
                    sibling_form(&routes, index, position)
                        .or_else(|| Some(SegmentForm::whole(LISTED_ID)))
                } else {
                    named_through_sibling(&routes, &lookup, index, position)
                        .or_else(|| named_by_item_route(&routes, &lookup, index, position))
                };
                if let Some(form) = form {
                    changes.push((index, position, form));
                }
            }
        }
        for (index, position, form) in changes {
            routes.set(index, position, &form);
        }
        Ok(routes.outcome())
    }
}

/// The routes indexed once per stage call, so each segment's checks visit only the routes that
/// can matter (a listing of its collection, its own route, a sibling holding its value) and the
/// stage stays linear in the recorded routes.
struct Lookup<'a> {
    /// Per listed collection (the decoded segments of a `GET` answering JSON) and value: the
    /// members array items hold it under.
    listed: MultiIndex<(&'a [CompactString], &'a str), &'a str>,
    /// Per decoded route and method (upper case): the routes recorded so.
    same_route: MultiIndex<(&'a [CompactString], Cow<'a, str>), usize>,
    /// Per segment count, position and decoded value there: the routes holding it as a parameter
    /// (the forms the stage was given; it changes none before its last check).
    at_position: MultiIndex<(usize, usize, &'a str), usize>,
    /// Per position and decoded value: the routes whose segment at that position is a parameter
    /// spelling it as a whole segment (`true`) or taking it as its value (`false`).
    item_values: MultiIndex<(usize, &'a str), (usize, bool)>,
}

impl<'a> Lookup<'a> {
    fn new(routes: &Routes<'a>) -> Self {
        let mut listed = Vec::new();
        let mut same_route = Vec::new();
        let mut at_position = Vec::new();
        let mut item_values = Vec::new();
        for (index, route) in routes.routes.iter().enumerate() {
            if route.method.eq_ignore_ascii_case("GET") && route.answer.json.is_some() {
                listed.extend(listed_values(route));
            }
            let key = (route.decoded.as_slice(), upper_case(&route.method));
            same_route.push((key, index));
            let parameters = route.decoded.iter().zip(routes.forms_of(index)).enumerate();
            for (position, (value, form)) in parameters {
                let Some(form) = form else {
                    continue;
                };
                at_position.push(((route.segments.len(), position, value.as_str()), index));
                item_values.extend(item_values_of(route, form, position, index));
            }
        }
        Self {
            listed: MultiIndex::new(listed),
            same_route: MultiIndex::new(same_route),
            at_position: MultiIndex::new(at_position),
            item_values: MultiIndex::new(item_values),
        }
    }
}

/// A listing's values its array items hold, each with its collection and the member holding it
/// (an item's own answer holds no array, so it lists none).
fn listed_values(
    route: &RecordedRoute,
) -> impl Iterator<Item = ((&[CompactString], &str), &str)> + '_ {
    route
        .answer
        .values
        .iter()
        .filter(|held| held.in_array)
        .filter_map(|held| Some((held.text.as_str(), item_member(&held.pointer)?)))
        .map(|(text, member)| ((route.decoded.as_slice(), text), member))
}

/// A route's parameter at `position`, by the segment and by the value it took when that differs.
fn item_values_of<'a>(
    route: &'a RecordedRoute,
    form: &SegmentForm,
    position: usize,
    index: usize,
) -> impl Iterator<Item = ((usize, &'a str), (usize, bool))> {
    let segment = route.decoded[position].as_str();
    let value = form.value_in(segment).filter(|value| *value != segment);
    std::iter::once(((position, segment), (index, true)))
        .chain(value.map(|value| ((position, value), (index, false))))
}

/// A method in upper case, borrowed when it is spelled so (as recorded methods mostly are).
fn upper_case(method: &str) -> Cow<'_, str> {
    if method.bytes().any(|byte| byte.is_ascii_lowercase()) {
        Cow::Owned(method.to_ascii_uppercase())
    } else {
        Cow::Borrowed(method)
    }
}

/// The member an array item holds a value under (`/1/id` → `id`, `/rows/0/name` → `name`), when
/// the pointer's last token is a member of an array's item.
fn item_member(pointer: &str) -> Option<&str> {
    let tokens: Vec<&str> = pointer.split('/').skip(1).collect();
    let [.., index, member] = tokens.as_slice() else {
        return None;
    };
    let is_index = !index.is_empty() && index.bytes().all(|byte| byte.is_ascii_digit());
    (is_index && !member.is_empty()).then_some(member)
}

/// Rule 1 (see the module docs).
fn listed_by_collection(
    routes: &Routes<'_>,
    lookup: &Lookup<'_>,
    index: usize,
    position: usize,
) -> bool {
    let route = &routes.routes[index];
    let value = route.decoded[position].as_str();
    let collection = &route.decoded[..position];
    let members: Vec<&str> = lookup.listed.get(&(collection, value)).copied().collect();
    if members.is_empty() {
        return false;
    }
    let key = (route.decoded.as_slice(), upper_case(&route.method));
    let same_route = lookup
        .same_route
        .get(&key)
        .map(|&other| &routes.routes[other]);
    let mut answered_json = false;
    for other in same_route {
        if other.answer.json.is_none() {
            continue;
        }
        answered_json = true;
        let names_it = other.answer.values.iter().any(|held| {
            !held.in_array
                && held.text == value
                && held
                    .pointer
                    .rsplit('/')
                    .next()
                    .is_some_and(|last| members.contains(&last))
                && held.pointer.matches('/').count() <= 2
        });
        if names_it {
            return true;
        }
    }
    !answered_json
}

/// Rule 2 (see the module docs): the form of a sibling route's parameter that took this value.
fn named_through_sibling(
    routes: &Routes<'_>,
    lookup: &Lookup<'_>,
    index: usize,
    position: usize,
) -> Option<SegmentForm> {
    let route = &routes.routes[index];
    let value = route.decoded[position].as_str();
    let mine = routes.others(index, position);
    let mut counts: BTreeMap<SegmentForm, usize> = BTreeMap::new();
    let key = (route.segments.len(), position, value);
    for &other in lookup.at_position.get(&key) {
        let Some(form) = routes.form(other, position) else {
            continue;
        };
        if form.value_in(value).is_some()
            && one_literal_apart(&mine, &routes.others(other, position), position)
        {
            *counts.entry(form.clone()).or_default() += 1;
        }
    }
    most_common(counts)
}

/// Rule 3 (see the module docs): the form an item route's parameter gives this segment.
fn named_by_item_route(
    routes: &Routes<'_>,
    lookup: &Lookup<'_>,
    index: usize,
    position: usize,
) -> Option<SegmentForm> {
    let route = &routes.routes[index];
    if position + 1 >= route.segments.len() {
        return None;
    }
    let mine = routes.others(index, position);
    let mut counts: BTreeMap<SegmentForm, usize> = BTreeMap::new();
    let key = (position, route.decoded[position].as_str());
    for &(other, spelled) in lookup.item_values.get(&key) {
        let Some(form) = routes.form(other, position) else {
            continue;
        };
        let theirs = routes.others(other, position);
        if theirs.len() >= mine.len() || !mine.starts_with(&theirs) {
            continue;
        }
        let form = if spelled {
            form.clone()
        } else {
            SegmentForm::whole(form.rule.clone())
        };
        *counts.entry(form).or_default() += 1;
    }
    most_common(counts)
}

/// Rule 4 (see the module docs): the segments of sibling families whose every value an item
/// route's whole-segment parameter took, with that parameter's form.
fn ids_of_items_elsewhere(routes: &Routes<'_>) -> Vec<(usize, usize, SegmentForm)> {
    // Per id, the forms (borrowed: one id per item, so a map, or a copy of a form, per id would
    // hold far more than the routes do) and how often each took it.
    let mut item_ids: HashMap<&str, Vec<(&SegmentForm, usize)>> = HashMap::new();
    for (index, route) in routes.routes.iter().enumerate() {
        let (Some(Some(form)), Some(value)) = (routes.forms_of(index).last(), route.decoded.last())
        else {
            continue;
        };
        if form.prefix.is_empty() && form.suffix.is_empty() {
            let counted = item_ids.entry(value.as_str()).or_default();
            match counted.iter_mut().find(|(known, _)| *known == form) {
                Some((_, count)) => *count += 1,
                None => counted.push((form, 1)),
            }
        }
    }
    let mut changes = Vec::new();
    for ((length, position, _), values) in families(routes) {
        if position == 0 || position + 1 >= length {
            continue;
        }
        let members: Vec<usize> = values.values().flatten().copied().collect();
        let decoded: BTreeSet<&str> = members
            .iter()
            .map(|&index| routes.routes[index].decoded[position].as_str())
            .collect();
        if decoded.len() < 2 || !decoded.iter().all(|value| item_ids.contains_key(value)) {
            continue;
        }
        let mut counts: BTreeMap<SegmentForm, usize> = BTreeMap::new();
        for value in &decoded {
            for (form, count) in &item_ids[value] {
                *counts.entry((*form).clone()).or_default() += count;
            }
        }
        if let Some(form) = most_common(counts) {
            changes.extend(
                members
                    .into_iter()
                    .map(|index| (index, position, form.clone())),
            );
        }
    }
    changes
}

/// Whether two routes' other tokens differ at exactly one position before `position`, where both
/// are literal.
fn one_literal_apart(mine: &[Token<'_>], theirs: &[Token<'_>], position: usize) -> bool {
    let differing: Vec<usize> = mine
        .iter()
        .zip(theirs)
        .enumerate()
        .filter(|(_, (one, other))| one != other)
        .map(|(at, _)| at)
        .collect();
    match differing.as_slice() {
        [at] => {
            *at < position
                && matches!(mine[*at], Token::Literal(_))
                && matches!(theirs[*at], Token::Literal(_))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::testing::route;
    use rea_plugin_api::contracts::route::RecordedRoute;

    fn placeholders(routes: Vec<RecordedRoute>) -> Vec<(usize, usize, String)> {
        crate::routes::testing::placeholders(&ListedId, routes)
    }

    #[test]
    fn an_item_its_collection_lists_and_names_by_one_member_is_a_parameter() {
        let changes = placeholders(vec![
            route("GET", "/agents", Some(&[("/0/id", "a1"), ("/1/id", "a2")])),
            route("GET", "/agents/a2", Some(&[("/id", "a2")])),
            route("GET", "/agents/team", Some(&[("/lead", "a1")])),
            route("DELETE", "/agents/a1", None),
        ]);
        assert_eq!(
            changes,
            vec![
                (1, 1, "{listed-id}".to_owned()),
                (3, 1, "{listed-id}".to_owned())
            ]
        );
    }

    #[test]
    fn a_value_listed_under_another_member_or_not_by_the_collection_stays_literal() {
        let changes = placeholders(vec![
            route(
                "GET",
                "/agents",
                Some(&[("/0/id", "a1"), ("/0/team", "tech")]),
            ),
            route("GET", "/agents/tech", Some(&[("/name", "tech")])),
            route("GET", "/teams", Some(&[("/0/id", "a1")])),
            route("GET", "/other/a1", Some(&[("/id", "a1")])),
        ]);
        assert_eq!(changes, Vec::new());
    }

    #[test]
    fn a_value_a_sibling_routes_parameter_took_takes_its_form() {
        let mut routes = vec![
            route("PUT", "/recipes/main/tiddlers/Call%20me", None),
            route("GET", "/recipes/main/tiddlers/Call%20me", Some(&[])),
            route("DELETE", "/bags/main/tiddlers/Call%20me", None),
            route("DELETE", "/bags/main/notes/Call%20me", None),
            route("DELETE", "/bags/main/tiddlers/Other", None),
        ];
        for route in &mut routes[..2] {
            route.forms[3] = Some(SegmentForm::whole("sibling-variance"));
        }
        assert_eq!(
            placeholders(routes),
            vec![(2, 3, "{sibling-variance}".to_owned())],
            "two literals apart, or a value the parameter never took, stays literal"
        );
    }

    #[test]
    fn a_segment_an_item_route_took_before_an_action_takes_its_form() {
        let mut routes = vec![
            route("GET", "/db/tags/6,infra.json", Some(&[])),
            route("POST", "/db/tags/6,infra/-/delete", None),
            route("GET", "/db/-/pkg-1.0.0.tgz", None),
            route("DELETE", "/db/-/pkg-1.0.0.tgz/-rev/3", None),
            route("POST", "/other/tags/6,infra/-/delete", None),
            route("POST", "/db/tags/7,infra/-/delete", None),
            route("POST", "/db/tags/extra/6,infra", None),
        ];
        routes[0].forms[2] = Some(SegmentForm {
            suffix: ".json".into(),
            ..SegmentForm::whole("fused-affix")
        });
        routes[2].forms[2] = Some(SegmentForm {
            prefix: "pkg-".into(),
            suffix: ".tgz".into(),
            ..SegmentForm::whole("fused-affix")
        });
        assert_eq!(
            placeholders(routes),
            vec![
                (1, 2, "{fused-affix}".to_owned()),
                (3, 2, "pkg-{fused-affix}.tgz".to_owned()),
            ],
            "another collection, a value the item never took, or a segment last in its route stays literal"
        );
    }

    #[test]
    fn ids_an_item_route_took_make_a_family_elsewhere_a_parameter_and_its_sub_resources_follow() {
        let mut routes = vec![
            route("GET", "/date-helpers", Some(&[])),
            route("GET", "/%40corp%2fui-kit", Some(&[])),
            route("GET", "/-/package/date-helpers/dist-tags", Some(&[])),
            route("GET", "/-/package/%40corp%2fui-kit/dist-tags", Some(&[])),
            route("PUT", "/-/package/date-helpers/dist-tags/legacy", None),
            route("GET", "/-/package/date-helpers/files", Some(&[])),
            route("GET", "/-/package/unknown/files", Some(&[])),
        ];
        for route in &mut routes {
            route.decoded = route
                .decoded
                .iter()
                .map(|segment| segment.replace("%40", "@").replace("%2f", "/").into())
                .collect();
        }
        for route in &mut routes[..2] {
            route.forms[0] = Some(SegmentForm::whole("sibling-variance"));
        }
        assert_eq!(
            placeholders(routes),
            vec![
                (2, 2, "{sibling-variance}".to_owned()),
                (3, 2, "{sibling-variance}".to_owned()),
                (4, 2, "{sibling-variance}".to_owned()),
            ],
            "a family holding a value no item took, or one value alone, stays literal"
        );
    }

    #[test]
    fn item_members_are_members_of_array_items() {
        assert_eq!(item_member("/1/id"), Some("id"));
        assert_eq!(item_member("/rows/0/name"), Some("name"));
        assert_eq!(item_member("/id"), None);
        assert_eq!(item_member("/0"), None);
        assert_eq!(item_member("/tags/0/"), None);
    }
}

//! `member-key`: a route's last segment that names a part of the document its parent route
//! answers (a version of a package, `/date-helpers/1.1.0` beside `/date-helpers` holding
//! `versions: {"1.1.0": {…}}`; an attachment, `/library/book:kindred/blurb.txt` beside the document
//! holding `_attachments: {"blurb.txt": {…}}`; a tag, `/-/package/p/dist-tags/legacy` beside
//! `/-/package/p/dist-tags` answering `{"latest": …, "legacy": …}`) is a parameter, so one tool
//! serves every part, not only the ones the build named.
//!
//! A literal last segment at position `p ≥ 1` is such a part when a recorded 2xx JSON answer of
//! a `GET` of its parent (the route's first `p` decoded segments) names it as a key of a map
//! (`RecordedAnswer::keys`), and the routes equal to it at every other position (its family)
//! hold at least two distinct such parts there: one part alone is no evidence that the segment
//! varies. The parts take the whole-segment rule `member-key`. A family whose siblings already
//! hold a parameter at that position is left as it is: the form widens no parameter another rule
//! made (`/date-helpers/latest` beside `/{…}/{…}` of the package's versions: a tag names the
//! version it resolves to, which the version route's answers do not show as the tag). A family
//! where a named part has routes beneath it (`/data/issue/1` beside `/data/issue`, its parent
//! `/data` answering `{"issue": {"link": …}, "status": …}`) is left as it is too: such a map is a
//! directory of collections (an issue tracker's classes), each key a collection the state reads
//! apart, not a part of one document.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeSet, HashMap};

use rea_plugin_api::contracts::route::{RouteFormOutcome, RouteFormRequest, SegmentForm};
use rea_plugin_api::{PluginError, RouteForm};

use crate::folder::sibling_form;
use crate::routes::{Routes, families};

/// The stage's name, also the rule of its parameters that take no sibling's form.
pub const MEMBER_KEY: &str = "member-key";

/// `member-key` (see the module docs).
pub struct MemberKey;

impl RouteForm for MemberKey {
    fn apply(&self, request: &RouteFormRequest) -> Result<RouteFormOutcome, PluginError> {
        let mut routes = Routes::new(request);
        let parts = parent_keys(&routes);
        let mut chosen: Vec<(usize, usize)> = Vec::new();
        for ((length, position, _), values) in families(&routes) {
            if position == 0 || position + 1 != length {
                continue;
            }
            let mut members = values.values().flatten();
            if members.any(|&index| sibling_form(&routes, index, position).is_some()) {
                continue;
            }
            let mut members = values.values().flatten();
            if members.any(|&index| {
                names_part(&routes, &parts, index, position)
                    && has_routes_beneath(&routes, index, position)
            }) {
                continue;
            }
            let named: BTreeSet<&str> = values
                .values()
                .flatten()
                .filter(|&&index| names_part(&routes, &parts, index, position))
                .map(|&index| routes.routes[index].decoded[position].as_str())
                .collect();
            if named.len() >= 2 {
                chosen.extend(
                    values
                        .values()
                        .flatten()
                        .filter(|&&index| names_part(&routes, &parts, index, position))
                        .map(|&index| (index, position)),
                );
            }
        }
        let form = SegmentForm::whole(MEMBER_KEY);
        for (index, position) in chosen {
            routes.set(index, position, &form);
        }
        Ok(routes.outcome())
    }
}

/// Per decoded path of a `GET` answering 2xx JSON: the map keys its answers name.
fn parent_keys<'a>(routes: &Routes<'a>) -> HashMap<&'a [CompactString], BTreeSet<&'a str>> {
    let mut parts: HashMap<&'a [CompactString], BTreeSet<&'a str>> = HashMap::new();
    for route in routes.routes {
        if route.method.eq_ignore_ascii_case("GET") && route.answer.json.is_some() {
            let keys = route.answer.keys.iter().map(|key| key.text.as_str());
            parts
                .entry(route.decoded.as_slice())
                .or_default()
                .extend(keys);
        }
    }
    parts
}

/// Whether route `index`'s segment at `position` is a key its parent's answers name.
fn names_part(
    routes: &Routes<'_>,
    parts: &HashMap<&[CompactString], BTreeSet<&str>>,
    index: usize,
    position: usize,
) -> bool {
    let route = &routes.routes[index];
    parts
        .get(&route.decoded[..position])
        .is_some_and(|keys| keys.contains(route.decoded[position].as_str()))
}

/// Whether a recorded route continues below route `index`'s segment at `position`
/// (`/data/issue/1` below `/data/issue`): the segment names a collection, not a leaf part.
fn has_routes_beneath(routes: &Routes<'_>, index: usize, position: usize) -> bool {
    let stem = &routes.routes[index].decoded[..=position];
    routes
        .routes
        .iter()
        .any(|route| route.decoded.len() > stem.len() && route.decoded.starts_with(stem))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::testing::route;
    use rea_plugin_api::contracts::route::{AnswerValue, RecordedRoute};

    fn keyed(path: &str, keys: &[&str]) -> RecordedRoute {
        let mut parent = route("GET", path, Some(&[]));
        parent.answer.keys = keys
            .iter()
            .map(|key| AnswerValue {
                pointer: format!("/versions/{key}").into(),
                in_array: false,
                text: (*key).into(),
            })
            .collect();
        parent
    }

    fn placeholders(routes: Vec<RecordedRoute>) -> Vec<(usize, usize, String)> {
        crate::routes::testing::placeholders(&MemberKey, routes)
    }

    #[test]
    fn two_parts_their_parents_name_as_map_keys_are_one_parameter() {
        let mut routes = vec![
            keyed("/db/doc-a", &["cover.txt"]),
            keyed("/db/doc-b", &["blurb.txt", "notes"]),
            route("GET", "/db/doc-a/cover.txt", None),
            route("PUT", "/db/doc-b/blurb.txt", None),
            route("GET", "/db/doc-b/history", None),
        ];
        for route in &mut routes[2..] {
            route.forms[1] = Some(SegmentForm::whole("sibling-variance"));
        }
        assert_eq!(
            placeholders(routes),
            vec![
                (2, 2, "{member-key}".to_owned()),
                (3, 2, "{member-key}".to_owned())
            ],
            "a segment no parent names stays literal"
        );
    }

    #[test]
    fn one_part_alone_or_a_part_not_last_stays_literal() {
        let changes = placeholders(vec![
            keyed("/pkg", &["1.0.0", "latest"]),
            route("GET", "/pkg/1.0.0", Some(&[])),
            route("GET", "/pkg/latest/files", None),
            route("GET", "/pkg/1.0.0/files", None),
            keyed("/other", &["x"]),
            route("GET", "/another/x", None),
        ]);
        assert_eq!(changes, Vec::new());
    }

    #[test]
    fn keys_naming_collections_with_items_beneath_stay_literal() {
        let changes = placeholders(vec![
            keyed("/rest/data", &["issue", "status", "priority"]),
            route("GET", "/rest/data/issue", Some(&[])),
            route("GET", "/rest/data/status", Some(&[])),
            route("GET", "/rest/data/priority", Some(&[])),
            route("GET", "/rest/data/issue/1", Some(&[])),
            route("PUT", "/rest/data/status/5", None),
        ]);
        assert_eq!(
            changes,
            Vec::new(),
            "a directory of collections is no document"
        );
    }

    #[test]
    fn parts_beside_a_parameter_another_rule_made_stay_literal() {
        let mut routes = vec![
            keyed("/pkg", &["latest", "legacy", "1.1.0"]),
            route("GET", "/pkg/latest", Some(&[])),
            route("GET", "/pkg/legacy", Some(&[])),
            route("GET", "/pkg/1.1.0", Some(&[])),
        ];
        routes[3].forms[1] = Some(SegmentForm::whole("sibling-variance"));
        assert_eq!(placeholders(routes), Vec::new());
    }
}

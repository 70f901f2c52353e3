//! `fused-affix`: an id fused with literal text in one segment (`7.json`, `v2:7`, `item-7`,
//! `pkg-1.0.0.tgz`, `org.couchdb.user:name`) becomes a parameter between that prefix and suffix,
//! so one tool serves every id, including ids the recording never read.
//!
//! 1. Families: among paths of the same length equal except at one position (any method), at
//!    least two distinct literal values there that share a prefix ending in a separator and a
//!    suffix starting with one (`.` `:` `,` `-` `_` `@` `~` `+` `=` space), the shared part
//!    holding a letter and no `%` (a part of digits only belongs to the id: `date-helpers-1.0.0.tgz`
//!    and `date-helpers-1.2.0.tgz` share `date-helpers-` and `.tgz`). The parts between are the
//!    ids. When every id fits one format rule, the parameter has that rule (`{numeric}.json`);
//!    otherwise it is a `fused-affix` parameter only when an affix sets a name apart (a prefix
//!    ending in, or a suffix starting with, `.` `:` `@` `~`; `-` and `_` alone join words of one
//!    name) and the recording shows the ids are values: two of them are scalars some recorded 2xx
//!    JSON answer holds, or two of the values' first 2xx JSON answers have the same shape (kind,
//!    and at least half their members shared). A family whose ids are also literal segments of
//!    other paths at that position names its parameter `collection` (`/tracker/tasks.json`
//!    beside `/tracker/tasks/1.json`), and is one parameter only when the shapes agree: the
//!    items the collections' first 2xx JSON answers list share at least half their members
//!    (`tasks.json` listing tasks and `projects.json` listing projects stay two tools each).
//!    A shared prefix that is the value a parameter of each route holds at another position, and
//!    a separator, is part of the id, not literal text (`/{name}/-/date-helpers-1.0.0.tgz`, the
//!    tarball named after its package, is `/{name}/-/{…}.tgz`: a tool for every package's
//!    tarballs, not only those of the package the build read).
//! 2. Single values: a segment whose run of parts fits a format rule, next to a prefix ending in
//!    or a suffix starting with `.`, `:`, `-`, `_`, `@` or `~`, each one worded part (one
//!    separator and a run holding a letter, no `%`, not itself id-shaped): `1.json`, `v2:7`,
//!    `item-7`; not `2.0`, not the composite `5,release.json`, not the version
//!    `2.0.0-beta.1`, not the revision `6-30687552719df095`. The longest such id wins.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::BTreeSet;

use rea_plugin_api::contracts::route::{RouteFormOutcome, RouteFormRequest, SegmentForm};
use rea_plugin_api::route_fields::{format_rule, is_separator};
use rea_plugin_api::{PluginError, RouteForm};

use crate::routes::{Routes, families};

/// The stage's name, also the rule of a parameter whose ids fit no format rule.
pub const FUSED_AFFIX: &str = "fused-affix";

/// `fused-affix` (see the module docs).
pub struct FusedAffix;

impl RouteForm for FusedAffix {
    fn apply(&self, request: &RouteFormRequest) -> Result<RouteFormOutcome, PluginError> {
        let mut routes = Routes::new(request);
        family_pass(&mut routes);
        single_pass(&mut routes);
        Ok(routes.outcome())
    }
}

fn family_pass(routes: &mut Routes<'_>) {
    let listed: BTreeSet<&str> = routes
        .routes
        .iter()
        .flat_map(|route| route.answer.values.iter().map(|value| value.text.as_str()))
        .collect();
    let mut forms: Vec<(Vec<usize>, usize, SegmentForm)> = Vec::new();
    for ((_, position, _), values) in families(routes) {
        if values.len() < 2 {
            continue;
        }
        let raw: Vec<&str> = values.keys().copied().collect();
        let Some((prefix, suffix)) = common_affixes(&raw) else {
            continue;
        };
        let ids: Vec<&str> = values
            .values()
            .filter_map(|holders| {
                let decoded = routes.routes[holders[0]].decoded[position].as_str();
                decoded.strip_prefix(prefix)?.strip_suffix(suffix)
            })
            .filter(|id| !id.is_empty())
            .collect();
        if ids.len() != values.len() {
            continue;
        }
        let collections = names_collections(routes, position, &ids);
        if collections && !item_shapes_agree(routes, &values) {
            continue;
        }
        let rule = match common_format(&ids) {
            Some(rule) => rule,
            None if !marks_a_name(prefix, suffix) => continue,
            None if echoed(&ids, &listed) || shapes_shown(routes, &values) => FUSED_AFFIX,
            None => continue,
        };
        let name = collections.then(|| "collection".to_owned());
        let holders: Vec<usize> = values.values().flatten().copied().collect();
        // A prefix spelling the routes' own parameter is part of the id (see the module docs).
        let prefix = if echoes_a_parameter(routes, &holders, position, prefix) {
            ""
        } else {
            prefix
        };
        let form = SegmentForm {
            rule: rule.to_owned(),
            prefix: prefix.to_owned(),
            suffix: suffix.to_owned(),
            name,
        };
        forms.push((holders, position, form));
    }
    for (holders, position, form) in forms {
        for route in holders {
            routes.set(route, position, &form);
        }
    }
}

/// Whether a family's shared prefix is the value a parameter of each of its routes holds at
/// another position, and one separator (`date-helpers-` of `date-helpers-1.0.0.tgz` under
/// `/{name}/-/`, `date-helpers` the `{name}`).
fn echoes_a_parameter(
    routes: &Routes<'_>,
    holders: &[usize],
    position: usize,
    prefix: &str,
) -> bool {
    let Some(name) = prefix
        .strip_suffix(is_separator)
        .filter(|name| !name.is_empty())
    else {
        return false;
    };
    holders.iter().all(|&holder| {
        let route = &routes.routes[holder];
        route
            .decoded
            .iter()
            .enumerate()
            .any(|(at, value)| at != position && value == name && routes.form(holder, at).is_some())
    })
}

fn single_pass(routes: &mut Routes<'_>) {
    for index in 0..routes.routes.len() {
        for position in 0..routes.routes[index].segments.len() {
            if !routes.open(index, position) {
                continue;
            }
            let route = &routes.routes[index];
            if let Some(form) = single_form(&route.segments[position], &route.decoded[position]) {
                routes.set(index, position, &form);
            }
        }
    }
}

/// The one rule every id fits, if any.
fn common_format(ids: &[&str]) -> Option<&'static str> {
    let first = format_rule(ids[0])?;
    ids.iter()
        .all(|id| format_rule(id) == Some(first))
        .then_some(first)
}

/// Whether an affix sets a name apart the way a file extension or a namespace does: a prefix
/// ending in, or a suffix starting with, `.` `:` `@` or `~` (`-` and `_` alone join the words of
/// one name: `entry_list`, `movie_list` are names, not a `_list` suffix; `pkg-1.0.0.tgz` is
/// marked by its `.tgz`).
fn marks_a_name(prefix: &str, suffix: &str) -> bool {
    const MARKS: [char; 4] = ['.', ':', '@', '~'];
    prefix.chars().last().is_some_and(|c| MARKS.contains(&c))
        || suffix.chars().next().is_some_and(|c| MARKS.contains(&c))
}

/// Whether at least two ids are scalars some recorded 2xx JSON answer holds.
fn echoed(ids: &[&str], listed: &BTreeSet<&str>) -> bool {
    ids.iter().filter(|id| listed.contains(*id)).count() >= 2
}

/// Whether the first 2xx JSON answers of at least two values have the same shape (kind, and at
/// least half their members shared).
fn shapes_shown(
    routes: &Routes<'_>,
    values: &std::collections::BTreeMap<&str, Vec<usize>>,
) -> bool {
    let shapes: Vec<(&str, &[CompactString])> = values
        .values()
        .filter_map(|holders| {
            holders.iter().find_map(|route| {
                let answer = &routes.routes[*route].answer;
                answer
                    .json
                    .as_deref()
                    .map(|kind| (kind, answer.members.as_slice()))
            })
        })
        .collect();
    shapes.len() >= 2 && shapes.iter().all(|shape| shapes_agree(*shape, shapes[0]))
}

/// Whether the items the first 2xx JSON answers of a family's values list have one shape (at
/// least half their members shared); a value whose answers list nothing does not count.
fn item_shapes_agree(
    routes: &Routes<'_>,
    values: &std::collections::BTreeMap<&str, Vec<usize>>,
) -> bool {
    let listed: Vec<&[CompactString]> = values
        .values()
        .filter_map(|holders| {
            holders.iter().find_map(|route| {
                let answer = &routes.routes[*route].answer;
                answer.json.as_ref()?;
                (!answer.item_members.is_empty()).then_some(answer.item_members.as_slice())
            })
        })
        .collect();
    listed
        .iter()
        .all(|members| shapes_agree(("list", members), ("list", listed[0])))
}

fn shapes_agree(one: (&str, &[CompactString]), other: (&str, &[CompactString])) -> bool {
    if one.0 != other.0 {
        return false;
    }
    let first: BTreeSet<&CompactString> = one.1.iter().collect();
    let second: BTreeSet<&CompactString> = other.1.iter().collect();
    let union = first.union(&second).count();
    union == 0 || first.intersection(&second).count() * 2 >= union
}

/// Whether at least two ids are also literal segments of other routes at `position`.
fn names_collections(routes: &Routes<'_>, position: usize, ids: &[&str]) -> bool {
    let literal: BTreeSet<&str> = routes
        .routes
        .iter()
        .enumerate()
        .filter(|(index, route)| {
            route.segments.len() > position + 1 && routes.form(*index, position).is_none()
        })
        .map(|(_, route)| route.decoded[position].as_str())
        .collect();
    ids.iter().filter(|id| literal.contains(*id)).count() >= 2
}

/// Whether a part (text between separators) holds a letter.
fn has_letter(part: &str) -> bool {
    part.bytes().any(|byte| byte.is_ascii_alphabetic())
}

/// The prefix and suffix every value shares (see the module docs), when one of them is not
/// empty.
fn common_affixes<'v>(values: &[&'v str]) -> Option<(&'v str, &'v str)> {
    let first = values[0];
    let shortest = values.iter().map(|value| value.len()).min()?;
    let mut prefix = values.iter().fold(first.len(), |length, value| {
        first
            .bytes()
            .zip(value.bytes())
            .take(length)
            .take_while(|(a, b)| a == b)
            .count()
    });
    let mut suffix = values.iter().fold(first.len(), |length, value| {
        first
            .bytes()
            .rev()
            .zip(value.bytes().rev())
            .take(length)
            .take_while(|(a, b)| a == b)
            .count()
    });
    // Cut each at a separator before the other is clamped, so the id keeps at least one byte.
    prefix = prefix_boundary(first, prefix);
    suffix = first.len() - suffix_boundary(first, suffix.min(shortest.saturating_sub(prefix + 1)));
    prefix = prefix_boundary(first, prefix.min(shortest.saturating_sub(suffix + 1)));
    let prefix = cut_prefix(&first[..prefix]);
    let suffix = cut_suffix(&first[first.len() - suffix..]);
    let clean = |affix: &str| !affix.contains('%');
    ((!prefix.is_empty() || !suffix.is_empty()) && clean(prefix) && clean(suffix))
        .then_some((prefix, suffix))
}

/// The longest prefix of `value` no longer than `length` that ends just after a separator.
fn prefix_boundary(value: &str, length: usize) -> usize {
    value
        .char_indices()
        .take_while(|(index, _)| *index < length)
        .filter(|(_, character)| is_separator(*character))
        .map(|(index, character)| index + character.len_utf8())
        .filter(|end| *end <= length)
        .last()
        .unwrap_or(0)
}

/// The start of the longest suffix of `value` no longer than `length` that starts with a
/// separator (`value.len()` for none).
fn suffix_boundary(value: &str, length: usize) -> usize {
    let start = value.len() - length;
    value
        .char_indices()
        .filter(|(index, character)| *index >= start && is_separator(*character))
        .map(|(index, _)| index)
        .next()
        .unwrap_or(value.len())
}

/// A prefix without its trailing parts that hold no letter (they belong to the id).
fn cut_prefix(mut prefix: &str) -> &str {
    while let Some(body) = prefix.strip_suffix(|character: char| is_separator(character)) {
        let start = body.rfind(is_separator).map_or(0, |index| index + 1);
        if has_letter(&body[start..]) {
            break;
        }
        prefix = &prefix[..start];
    }
    prefix
}

/// A suffix without its leading parts that hold no letter (they belong to the id).
fn cut_suffix(mut suffix: &str) -> &str {
    while let Some(first) = suffix
        .chars()
        .next()
        .filter(|character| is_separator(*character))
    {
        let body = &suffix[first.len_utf8()..];
        let end = body.find(is_separator).unwrap_or(body.len());
        if has_letter(&body[..end]) {
            break;
        }
        suffix = &body[end..];
    }
    suffix
}

/// Whether a single-id affix is one worded part: one separator and one run of text holding a
/// letter, no `%`, and not itself shaped like an id (`.json`, `v2:`, `item-`; not `.0.0-beta.1`,
/// not the revision hash of `6-30687552719df095`).
fn worded_part(affix: &str) -> bool {
    let parts: Vec<&str> = affix
        .split(is_separator)
        .filter(|part| !part.is_empty())
        .collect();
    parts.len() == 1
        && affix
            .chars()
            .filter(|character| is_separator(*character))
            .count()
            == 1
        && has_letter(parts[0])
        && !affix.contains('%')
        && format_rule(parts[0]).is_none()
}

/// The form of a single segment whose id fits a format rule (see the module docs).
fn single_form(raw: &str, decoded: &str) -> Option<SegmentForm> {
    const BESIDE: [char; 6] = ['.', ':', '-', '_', '@', '~'];
    let cuts: Vec<usize> = raw
        .char_indices()
        .filter(|(_, character)| is_separator(*character))
        .map(|(index, _)| index)
        .collect();
    let mut best: Option<SegmentForm> = None;
    let mut best_length = 0;
    let starts = std::iter::once(0).chain(cuts.iter().map(|cut| cut + 1));
    for start in starts {
        let ends = cuts
            .iter()
            .copied()
            .filter(|cut| *cut > start)
            .chain(std::iter::once(raw.len()));
        for end in ends {
            let (prefix, suffix) = (&raw[..start], &raw[end..]);
            let beside_ok = prefix.chars().last().is_none_or(|c| BESIDE.contains(&c))
                && suffix.chars().next().is_none_or(|c| BESIDE.contains(&c));
            let affix_ok = |affix: &str| affix.is_empty() || worded_part(affix);
            if (prefix.is_empty() && suffix.is_empty())
                || !beside_ok
                || !affix_ok(prefix)
                || !affix_ok(suffix)
            {
                continue;
            }
            let Some(id) = decoded
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(suffix))
            else {
                continue;
            };
            let Some(rule) = format_rule(id) else {
                continue;
            };
            if id.len() > best_length {
                best_length = id.len();
                best = Some(SegmentForm {
                    rule: rule.to_owned(),
                    prefix: prefix.to_owned(),
                    suffix: suffix.to_owned(),
                    name: None,
                });
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::testing::route;
    use rea_plugin_api::contracts::route::RecordedRoute;

    fn apply(routes: Vec<RecordedRoute>) -> Vec<(usize, usize, String)> {
        FusedAffix
            .apply(&RouteFormRequest {
                options: Default::default(),
                routes,
                schema_version: 1,
            })
            .unwrap()
            .changes
            .into_iter()
            .map(|change| (change.route, change.segment, change.form.placeholder()))
            .collect()
    }

    #[test]
    fn affixes_are_cut_at_separators_and_keep_id_parts() {
        assert_eq!(
            common_affixes(&["date-helpers-1.0.0.tgz", "date-helpers-1.2.0.tgz"]),
            Some(("date-helpers-", ".tgz"))
        );
        assert_eq!(
            common_affixes(&["org.couchdb.user:admin", "org.couchdb.user:bea"]),
            Some(("org.couchdb.user:", ""))
        );
        assert_eq!(
            common_affixes(&["5,release.json", "13,launch.json"]),
            Some(("", ".json"))
        );
        assert_eq!(common_affixes(&["1.json", "14.json"]), Some(("", ".json")));
        assert_eq!(common_affixes(&["welcome", "status"]), None);
        assert_eq!(common_affixes(&["v1", "v2"]), None);
        assert_eq!(common_affixes(&["2.0", "3.0"]), None);
        assert_eq!(
            common_affixes(&["a%20x.json", "b.json"]),
            Some(("", ".json"))
        );
    }

    #[test]
    fn single_ids_need_a_format_and_a_worded_affix() {
        let placeholder = |raw: &str| single_form(raw, raw).map(|form| form.placeholder());
        assert_eq!(placeholder("7.json").as_deref(), Some("{numeric}.json"));
        assert_eq!(placeholder("v2:7").as_deref(), Some("v2:{numeric}"));
        assert_eq!(placeholder("item-7").as_deref(), Some("item-{numeric}"));
        assert_eq!(
            placeholder("run-5d0c6a1e-1f4b-4c36-9a53-8d2f4b7e0a11.log").as_deref(),
            Some("run-{uuid}.log")
        );
        for literal in [
            "2.0",
            "5,release.json",
            "v2",
            "tiddlers.json",
            "7",
            "1-2",
            "2.0.0-beta.1",
            "6-30687552719df095",
        ] {
            assert_eq!(placeholder(literal), None, "{literal}");
        }
    }

    #[test]
    fn families_of_ids_become_one_parameter() {
        let changes = apply(vec![
            route(
                "GET",
                "/t/projects/WEB.json",
                Some(&[("/rows/0/code", "WEB")]),
            ),
            route(
                "GET",
                "/t/projects/CRM.json",
                Some(&[("/rows/0/code", "CRM")]),
            ),
            route("GET", "/t/tasks/1.json", Some(&[])),
            route("GET", "/-/user/org.couchdb.user:admin", None),
            route("PUT", "/-/user/org.couchdb.user:bea", None),
        ]);
        assert_eq!(
            changes,
            vec![
                (0, 2, "{fused-affix}.json".to_owned()),
                (1, 2, "{fused-affix}.json".to_owned()),
                (2, 2, "{numeric}.json".to_owned()),
            ],
            "user names nothing shows as values stay literal"
        );
    }

    #[test]
    fn a_prefix_spelling_the_routes_own_parameter_is_part_of_the_id() {
        let tarball = |version: &str| {
            let mut read = route(
                "GET",
                &format!("/pkg/-/pkg-{version}.tgz"),
                Some(&[("/versions/0", version)]),
            );
            read.forms[0] = Some(SegmentForm::whole("prefix-variance"));
            read
        };
        let changes = apply(vec![tarball("1.0.0"), tarball("1.2.0")]);
        assert_eq!(
            changes,
            vec![
                (0, 2, "{fused-affix}.tgz".to_owned()),
                (1, 2, "{fused-affix}.tgz".to_owned()),
            ]
        );
        let literal = |version: &str| {
            route(
                "GET",
                &format!("/pkg/-/pkg-{version}.tgz"),
                Some(&[("/versions/0", version)]),
            )
        };
        let changes = apply(vec![literal("1.0.0"), literal("1.2.0")]);
        assert_eq!(
            changes[0].2, "pkg-{fused-affix}.tgz",
            "a literal `pkg` is no parameter's value"
        );
    }

    #[test]
    fn words_joined_by_dash_or_underscore_are_names_not_fused_ids() {
        let changes = apply(vec![
            route("GET", "/api/entry_list/1", Some(&[("/name", "entry")])),
            route("GET", "/api/movie_list/1", Some(&[("/name", "movie")])),
            route("GET", "/api/entry_list", Some(&[])),
            route("GET", "/api/movie_list", Some(&[])),
        ]);
        assert_eq!(changes, Vec::new());
    }

    #[test]
    fn collections_listing_items_of_other_shapes_stay_apart() {
        let mut tasks = route("GET", "/t/tasks.json", Some(&[]));
        tasks.answer.item_members = vec!["assignee".into(), "id".into(), "title".into()];
        let mut projects = route("GET", "/t/projects.json", Some(&[]));
        projects.answer.item_members = vec!["code".into(), "name".into()];
        let changes = FusedAffix
            .apply(&RouteFormRequest {
                options: Default::default(),
                routes: vec![
                    tasks,
                    projects,
                    route("GET", "/t/tasks/1", None),
                    route("GET", "/t/projects/ana", None),
                ],
                schema_version: 1,
            })
            .unwrap()
            .changes;
        assert!(changes.is_empty(), "{changes:?}");
    }

    #[test]
    fn collection_names_fused_with_a_suffix_are_a_collection_argument() {
        let mut first = route("GET", "/t/tasks.json", Some(&[]));
        first.answer.members = vec!["ok".into(), "rows".into()];
        let mut second = route("GET", "/t/people.json", Some(&[]));
        second.answer.members = vec!["ok".into(), "rows".into(), "next".into()];
        let changes = FusedAffix
            .apply(&RouteFormRequest {
                options: Default::default(),
                routes: vec![
                    first,
                    second,
                    route("GET", "/t/tasks/1", None),
                    route("GET", "/t/people/ana", None),
                ],
                schema_version: 1,
            })
            .unwrap()
            .changes;
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[0].form.placeholder(), "{fused-affix}.json");
        assert_eq!(changes[0].form.name.as_deref(), Some("collection"));
    }
}

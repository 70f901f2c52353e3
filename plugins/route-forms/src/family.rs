//! Rule 6 of `listed-id` ([`crate::listed`]), *one more call of a family*: a route whose literal
//! segments sit where a family of routes holds parameters, each literal a value the recording
//! shows is an id, is one more call of that family, so the one version read of a scoped package
//! (`GET /@corp%2Fui-kit/2.0.0-beta.1`, its id over two segments joined by the host) joins
//! `GET /{name}/{version}` instead of staying a tool of its own.
//!
//! A route `R` takes forms at its literal segments `P` (at least one) when:
//! 1. a family of routes (the same method and number of segments, and among themselves the same
//!    template) holds a whole-segment parameter (no prefix or suffix) at every position of `P`
//!    and equals `R` at every other position (literal segments equal, parameters of equal forms);
//! 2. every value `R` holds at `P` (decoded) is shown to be an id: a whole-segment parameter of
//!    any route took it at that position (`@corp/ui-kit`, read as `GET /{name}`), or a recorded
//!    answer names it as a key of a map whose kind (the map's pointer, in an answer of a route
//!    of as many segments) also names a value the family took there as a key (`2.0.0-beta.1`
//!    among one package document's `versions`, as `1.1.0` is among another's; not `latest`
//!    among the `dist-tags`, whose keys are no version).
//!
//! Of several such families the one of the most routes gives the forms (the first template in
//! order among equals).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::route::SegmentForm;

use crate::routes::{Routes, Token};

/// Per method (upper case) and segment count: per template, the routes holding it.
type Templates<'a> = BTreeMap<(String, usize), BTreeMap<Vec<Token<'a>>, Vec<usize>>>;

/// The changes rule 6 proposes (see the module docs), for segments still literal.
pub(crate) fn joins_family(routes: &Routes<'_>) -> Vec<(usize, usize, SegmentForm)> {
    let ids = Ids::new(routes);
    if ids.is_empty() {
        return Vec::new();
    }
    let templates = templates(routes);
    let mut changes = Vec::new();
    for (index, route) in routes.routes.iter().enumerate() {
        let open: Vec<usize> = (0..route.segments.len())
            .filter(|position| routes.open(index, *position))
            .collect();
        let maybe = |position: &usize| ids.may_show(*position, &route.decoded[*position]);
        if open.is_empty() || !open.iter().all(maybe) {
            continue;
        }
        let key = (
            route.method.as_str().to_ascii_uppercase(),
            route.segments.len(),
        );
        let mine = tokens(routes, index);
        let shown = |holders: &[usize]| {
            open.iter().all(|&position| {
                let family = holders
                    .iter()
                    .map(|&holder| routes.routes[holder].decoded[position].as_str());
                ids.shows(position, route.decoded[position].as_str(), family)
            })
        };
        let family = templates
            .get(&key)
            .into_iter()
            .flatten()
            .filter(|(template, holders)| fits(&mine, template, &open) && shown(holders))
            .max_by_key(|(_, holders)| (holders.len(), std::cmp::Reverse(holders[0])));
        if let Some((template, _)) = family {
            for &position in &open {
                if let Token::Parameter(form) = &template[position] {
                    changes.push((index, position, form.clone()));
                }
            }
        }
    }
    changes
}

/// Whether a family's template holds a whole-segment parameter at every open position and equals
/// the route's tokens elsewhere.
fn fits(mine: &[Token<'_>], template: &[Token<'_>], open: &[usize]) -> bool {
    mine.iter()
        .zip(template)
        .enumerate()
        .all(|(position, (own, theirs))| {
            if open.contains(&position) {
                matches!(theirs, Token::Parameter(form) if form.prefix.is_empty() && form.suffix.is_empty())
            } else {
                own == theirs
            }
        })
}

/// The routes' templates, by method and segment count (a route with no parameter is none).
fn templates<'a>(routes: &Routes<'a>) -> Templates<'a> {
    let mut templates: Templates<'a> = BTreeMap::new();
    for (index, route) in routes.routes.iter().enumerate() {
        if routes.forms_of(index).all(|form| form.is_none()) {
            continue;
        }
        templates
            .entry((
                route.method.as_str().to_ascii_uppercase(),
                route.segments.len(),
            ))
            .or_default()
            .entry(tokens(routes, index))
            .or_default()
            .push(index);
    }
    templates
}

/// A route's tokens: its literal segments and its parameters' forms.
fn tokens<'a>(routes: &Routes<'a>, index: usize) -> Vec<Token<'a>> {
    routes.routes[index]
        .segments
        .iter()
        .zip(routes.forms_of(index))
        .map(|(segment, form)| match form {
            Some(form) => Token::Parameter(form.clone()),
            None => Token::Literal(segment),
        })
        .collect()
}

/// What the recording shows to be an id (step 2 of the module docs).
struct Ids<'a> {
    /// The values whole-segment parameters took, by position.
    taken: BTreeSet<(usize, &'a str)>,
    /// Per name of a map's member a recorded answer names, the maps naming it (the pointers of
    /// the maps, per route).
    keys: BTreeMap<&'a str, BTreeSet<(usize, &'a str)>>,
}

impl<'a> Ids<'a> {
    fn new(routes: &Routes<'a>) -> Self {
        let mut taken = BTreeSet::new();
        let mut keys: BTreeMap<&'a str, BTreeSet<(usize, &'a str)>> = BTreeMap::new();
        for (index, route) in routes.routes.iter().enumerate() {
            for (position, form) in routes.forms_of(index).enumerate() {
                if form.is_some_and(|form| form.prefix.is_empty() && form.suffix.is_empty()) {
                    taken.insert((position, route.decoded[position].as_str()));
                }
            }
            for key in &route.answer.keys {
                let map = key.pointer.rsplit_once('/').map_or("", |(map, _)| map);
                keys.entry(key.text.as_str())
                    .or_default()
                    .insert((route.segments.len(), map));
            }
        }
        Self { taken, keys }
    }

    fn is_empty(&self) -> bool {
        self.taken.is_empty() && self.keys.is_empty()
    }

    /// Whether a value at a position may be shown to be an id: a parameter took it there, or an
    /// answer names it as a key.
    fn may_show(&self, position: usize, value: &str) -> bool {
        self.taken.contains(&(position, value)) || self.keys.contains_key(value)
    }

    /// Whether a value at a position is shown to be an id of a family holding `family` there: a
    /// parameter took it there, or a map naming it as a key names one of the family's values
    /// too (a version among `versions`, not a tag among `dist-tags`).
    fn shows<'v>(
        &self,
        position: usize,
        value: &str,
        mut family: impl Iterator<Item = &'v str>,
    ) -> bool {
        if self.taken.contains(&(position, value)) {
            return true;
        }
        let Some(maps) = self.keys.get(value) else {
            return false;
        };
        family.any(|other| {
            self.keys
                .get(other)
                .is_some_and(|theirs| !theirs.is_disjoint(maps))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::testing::route;
    use rea_plugin_api::contracts::route::{AnswerValue, RecordedRoute, RouteFormRequest};

    fn changes(routes: Vec<RecordedRoute>) -> Vec<(usize, usize, String)> {
        let request = RouteFormRequest {
            options: Default::default(),
            routes,
            schema_version: 1,
        };
        joins_family(&Routes::new(&request))
            .into_iter()
            .map(|(route, segment, form)| (route, segment, form.placeholder()))
            .collect()
    }

    /// `GET /{name}` of `pkg` and `@corp/ui-kit` (whose answers name `versions` and `dist-tags`
    /// keys), `GET
    /// /{name}/{version}` of pkg's 1.0.0 and 1.1.0, then `more`.
    fn packages(more: Vec<RecordedRoute>) -> Vec<RecordedRoute> {
        let name = Some(SegmentForm::whole("sibling-variance"));
        let (package, version) = (
            Some(SegmentForm::whole("prefix-variance")),
            Some(SegmentForm::whole("version-rule")),
        );
        let mut routes = Vec::new();
        for path in ["/pkg", "/@corp%2Fui-kit"] {
            let mut read = route("GET", path, Some(&[]));
            read.forms[0] = name.clone();
            read.answer.keys = [
                "/versions/1.0.0",
                "/versions/1.1.0",
                "/versions/2.0.0-beta.1",
                "/dist-tags/latest",
            ]
            .into_iter()
            .map(|pointer| AnswerValue {
                pointer: pointer.into(),
                in_array: false,
                text: pointer.rsplit('/').next().unwrap_or_default().into(),
            })
            .collect();
            routes.push(read);
        }
        for path in ["/pkg/1.0.0", "/pkg/1.1.0"] {
            let mut read = route("GET", path, Some(&[]));
            read.forms = vec![package.clone(), version.clone()];
            routes.push(read);
        }
        routes.extend(more);
        routes
    }

    #[test]
    fn a_route_of_ids_at_a_familys_parameters_takes_their_forms() {
        let changes = changes(packages(vec![
            route("GET", "/@corp%2Fui-kit/2.0.0-beta.1", Some(&[])),
            route("PUT", "/@corp%2Fui-kit/2.0.0-beta.1", None),
            route("GET", "/@corp%2Fui-kit/3.0.0", Some(&[])),
            route("GET", "/-/2.0.0-beta.1", Some(&[])),
            route("GET", "/@corp%2Fui-kit/latest", Some(&[])),
        ]));
        assert_eq!(
            changes,
            vec![
                (4, 0, "{prefix-variance}".to_owned()),
                (4, 1, "{version-rule}".to_owned()),
            ],
            "no PUT family; 3.0.0 is shown as no id; `-` was never taken at position 0; \
             `latest` is a key of a map naming no version"
        );
    }

    #[test]
    fn a_route_without_a_shown_id_or_family_is_left_alone() {
        let mut routes = vec![route("GET", "/pkg", Some(&[]))];
        routes[0].forms[0] = Some(SegmentForm::whole("sibling-variance"));
        routes.push(route("GET", "/pkg/readme", Some(&[])));
        assert_eq!(changes(routes), Vec::new(), "no family of two segments");
    }
}

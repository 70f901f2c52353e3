//! The routes a form works on: the request's segments with the forms so far, changed in place, and
//! the outcome listing what changed.

use std::collections::BTreeMap;

use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::route::{
    RecordedRoute, RouteFormOutcome, RouteFormRequest, SegmentChange, SegmentForm,
};

/// One template token of a route for comparisons: the literal segment or the parameter's form.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Token<'a> {
    Literal(&'a str),
    Parameter(SegmentForm),
}

/// The request's routes and their forms as a form changes them.
pub(crate) struct Routes<'a> {
    pub(crate) routes: &'a [RecordedRoute],
    pub(crate) forms: Vec<Vec<Option<SegmentForm>>>,
}

impl<'a> Routes<'a> {
    pub(crate) fn new(request: &'a RouteFormRequest) -> Self {
        Self {
            routes: &request.routes,
            forms: request
                .routes
                .iter()
                .map(|route| {
                    let mut forms = route.forms.clone();
                    forms.resize(route.segments.len(), None);
                    forms
                })
                .collect(),
        }
    }

    /// Whether segment `position` of route `route` is still literal and not empty.
    pub(crate) fn open(&self, route: usize, position: usize) -> bool {
        self.forms[route][position].is_none() && !self.routes[route].segments[position].is_empty()
    }

    /// The route's tokens except at `skip`.
    pub(crate) fn others(&self, route: usize, skip: usize) -> Vec<Token<'a>> {
        self.routes[route]
            .segments
            .iter()
            .zip(&self.forms[route])
            .enumerate()
            .filter(|(index, _)| *index != skip)
            .map(|(_, (segment, form))| token(segment, form.as_ref()))
            .collect()
    }

    /// Gives segment `position` of route `route` a form unless it has one; whether it changed.
    pub(crate) fn set(&mut self, route: usize, position: usize, form: &SegmentForm) -> bool {
        let slot = &mut self.forms[route][position];
        if slot.is_some() {
            return false;
        }
        *slot = Some(form.clone());
        true
    }

    /// The outcome: every segment literal in the request that has a form now.
    pub(crate) fn outcome(self) -> RouteFormOutcome {
        let mut changes = Vec::new();
        for (index, (route, forms)) in self.routes.iter().zip(self.forms).enumerate() {
            for (segment, form) in forms.into_iter().enumerate() {
                let was_literal = route.forms.get(segment).is_none_or(Option::is_none);
                if let (true, Some(form)) = (was_literal, form) {
                    changes.push(SegmentChange {
                        route: index,
                        segment,
                        form,
                    });
                }
            }
        }
        RouteFormOutcome {
            changes,
            query_families: Vec::new(),
            schema_version: SCHEMA_VERSION,
        }
    }
}

/// (length, position, the other tokens) → value → the routes holding it there.
pub(crate) type Families<'a> =
    BTreeMap<(usize, usize, Vec<Token<'a>>), BTreeMap<&'a str, Vec<usize>>>;

/// The sibling families of the routes' open segments: routes of one length equal except at one
/// position, by the values they hold there.
pub(crate) fn families<'a>(routes: &Routes<'a>) -> Families<'a> {
    let mut sets: Families<'a> = BTreeMap::new();
    for (index, route) in routes.routes.iter().enumerate() {
        for position in 0..route.segments.len() {
            if !routes.open(index, position) {
                continue;
            }
            sets.entry((
                route.segments.len(),
                position,
                routes.others(index, position),
            ))
            .or_default()
            .entry(route.segments[position].as_str())
            .or_default()
            .push(index);
        }
    }
    sets
}

/// The form most routes gave (the first in form order among equals), if any.
pub(crate) fn most_common(counts: BTreeMap<SegmentForm, usize>) -> Option<SegmentForm> {
    let most = counts.values().copied().max()?;
    counts
        .into_iter()
        .find(|(_, count)| *count == most)
        .map(|(form, _)| form)
}

fn token<'a>(segment: &'a str, form: Option<&SegmentForm>) -> Token<'a> {
    match form {
        Some(form) => Token::Parameter(form.clone()),
        None => Token::Literal(segment),
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Routes for the forms' unit tests.

    use rea_plugin_api::RouteForm;
    use rea_plugin_api::contracts::route::{
        AnswerValue, RecordedAnswer, RecordedRoute, RouteFormRequest,
    };

    /// The `(route, segment, placeholder)` of every change a form proposes for these routes.
    pub(crate) fn placeholders(
        form: &impl RouteForm,
        routes: Vec<RecordedRoute>,
    ) -> Vec<(usize, usize, String)> {
        form.apply(&RouteFormRequest {
            options: Default::default(),
            routes,
            schema_version: 1,
        })
        .expect("the form answers")
        .changes
        .into_iter()
        .map(|change| (change.route, change.segment, change.form.placeholder()))
        .collect()
    }

    /// A route answering 2xx JSON with the given `(pointer, text)` values, or not JSON when
    /// `values` is `None`.
    pub(crate) fn route(
        method: &str,
        path: &str,
        values: Option<&[(&str, &str)]>,
    ) -> RecordedRoute {
        let segments: Vec<String> = path
            .strip_prefix('/')
            .unwrap_or(path)
            .split('/')
            .map(str::to_owned)
            .collect();
        RecordedRoute {
            method: method.to_owned(),
            decoded: segments
                .iter()
                .map(|segment| segment.replace("%20", " "))
                .collect(),
            forms: vec![None; segments.len()],
            segments,
            answer: RecordedAnswer {
                status: 200,
                json: values.map(|_| "object".to_owned()),
                members: Vec::new(),
                item_members: Vec::new(),
                values: values
                    .unwrap_or_default()
                    .iter()
                    .map(|(pointer, text)| AnswerValue {
                        pointer: (*pointer).to_owned(),
                        in_array: pointer.split('/').any(|token| {
                            !token.is_empty() && token.bytes().all(|byte| byte.is_ascii_digit())
                        }),
                        text: (*text).to_owned(),
                    })
                    .collect(),
                paths: Vec::new(),
                keys: Vec::new(),
            },
        }
    }
}

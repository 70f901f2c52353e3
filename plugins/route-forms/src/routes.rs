//! The routes a form works on: the request's segments with the forms so far, changed in place, and
//! the outcome listing what changed. The forms the request gave are borrowed, not copied (issue 17:
//! a copy of every route's forms was a tenth of the build's peak, the route-form exchange).

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

/// A segment's form: the one the request gave it, or one the stage made.
#[derive(Debug, Clone)]
enum Slot<'a> {
    Given(&'a SegmentForm),
    Made(Box<SegmentForm>),
}

impl Slot<'_> {
    fn form(&self) -> &SegmentForm {
        match self {
            Slot::Given(form) => form,
            Slot::Made(form) => form,
        }
    }
}

/// The request's routes and their forms as a form changes them.
pub(crate) struct Routes<'a> {
    pub(crate) routes: &'a [RecordedRoute],
    /// Per route, per segment: its form so far.
    slots: Vec<Vec<Option<Slot<'a>>>>,
}

impl<'a> Routes<'a> {
    pub(crate) fn new(request: &'a RouteFormRequest) -> Self {
        Self {
            routes: &request.routes,
            slots: request
                .routes
                .iter()
                .map(|route| {
                    (0..route.segments.len())
                        .map(|position| route.forms.get(position)?.as_ref().map(Slot::Given))
                        .collect()
                })
                .collect(),
        }
    }

    /// The form of segment `position` of route `route` so far.
    pub(crate) fn form(&self, route: usize, position: usize) -> Option<&SegmentForm> {
        self.slots[route][position].as_ref().map(Slot::form)
    }

    /// The forms of route `route`'s segments so far, in order.
    pub(crate) fn forms_of(
        &self,
        route: usize,
    ) -> impl ExactSizeIterator<Item = Option<&SegmentForm>> + '_ {
        self.slots[route]
            .iter()
            .map(|slot| slot.as_ref().map(Slot::form))
    }

    /// Whether segment `position` of route `route` is still literal and not empty.
    pub(crate) fn open(&self, route: usize, position: usize) -> bool {
        self.slots[route][position].is_none() && !self.routes[route].segments[position].is_empty()
    }

    /// The route's tokens except at `skip`.
    pub(crate) fn others(&self, route: usize, skip: usize) -> Vec<Token<'a>> {
        self.routes[route]
            .segments
            .iter()
            .zip(self.forms_of(route))
            .enumerate()
            .filter(|(index, _)| *index != skip)
            .map(|(_, (segment, form))| token(segment, form))
            .collect()
    }

    /// Gives segment `position` of route `route` a form unless it has one; whether it changed.
    pub(crate) fn set(&mut self, route: usize, position: usize, form: &SegmentForm) -> bool {
        let slot = &mut self.slots[route][position];
        if slot.is_some() {
            return false;
        }
        *slot = Some(Slot::Made(Box::new(form.clone())));
        true
    }

    /// The outcome: every segment literal in the request that has a form now.
    pub(crate) fn outcome(self) -> RouteFormOutcome {
        let mut changes = Vec::new();
        for (index, slots) in self.slots.iter().enumerate() {
            for (segment, slot) in slots.iter().enumerate() {
                if let Some(Slot::Made(form)) = slot {
                    changes.push(SegmentChange {
                        route: index,
                        segment,
                        form: SegmentForm::clone(form),
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
        let segments: Vec<rea_plugin_api::contracts::capture::CompactString> = path
            .strip_prefix('/')
            .unwrap_or(path)
            .split('/')
            .map(Into::into)
            .collect();
        RecordedRoute {
            method: method.into(),
            decoded: segments
                .iter()
                .map(|segment| segment.replace("%20", " ").into())
                .collect(),
            forms: vec![None; segments.len()],
            segments,
            answer: RecordedAnswer {
                status: 200,
                json: values.map(|_| "object".into()),
                members: Vec::new(),
                item_members: Vec::new(),
                values: values
                    .unwrap_or_default()
                    .iter()
                    .map(|(pointer, text)| AnswerValue {
                        pointer: (*pointer).into(),
                        in_array: pointer.split('/').any(|token| {
                            !token.is_empty() && token.bytes().all(|byte| byte.is_ascii_digit())
                        }),
                        text: (*text).into(),
                    })
                    .collect(),
                paths: Vec::new(),
                keys: Vec::new(),
            },
        }
    }
}

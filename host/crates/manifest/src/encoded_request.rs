//! The route-form request as the host holds it between stages: the JSON text that crosses the ABI,
//! with where each route's `forms` sit in it, so a stage's kept changes rewrite only the forms and
//! the request is never held both typed and encoded (issue 17: the route-form exchange was the
//! build's peak, the typed routes held beside their text while the stage decoded its own copy).
//! The routes' forms live only in the text while the stages run: a route's are read back from it
//! when a stage changes them ([`EncodedRequest::forms_of`]) and all of them after the last stage
//! (16k routes' forms held typed took as much as the text again).
//!
//! The text is the [`RouteFormRequest`] serde writes (the same members in the same order, compact),
//! built one route at a time as each is made, so no list of typed routes is held.
//!
//! [`RouteFormRequest`]: rea_plugin_api::contracts::route::RouteFormRequest

use std::collections::BTreeMap;
use std::ops::Range;

use rea_evidence::Refusal;
use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::route::{RecordedRoute, SegmentForm};
use serde::Serialize;

/// The request's text up to its first route.
const OPENING: &str = r#"{"options":{},"routes":["#;

/// One origin's route-form request as JSON text.
#[derive(Debug)]
pub(crate) struct EncodedRequest {
    text: String,
    /// Per route, in order: the bytes of `text` its `forms` value takes.
    forms: Vec<Range<usize>>,
}

impl EncodedRequest {
    /// An empty request, to [`Self::push`] routes on.
    pub(crate) fn new() -> Self {
        Self {
            text: OPENING.to_owned(),
            forms: Vec::new(),
        }
    }

    /// Writes a route (its forms are read back from the text: [`Self::forms_of`]).
    pub(crate) fn push(&mut self, route: RecordedRoute) -> Result<(), Refusal> {
        if !self.forms.is_empty() {
            self.text.push(',');
        }
        self.write(r#"{"method":"#, &route.method)?;
        self.write(r#","segments":"#, &route.segments)?;
        self.write(r#","decoded":"#, &route.decoded)?;
        self.text.push_str(r#","forms":"#);
        let start = self.text.len();
        self.write("", &route.forms)?;
        self.forms.push(start..self.text.len());
        self.write(r#","answer":"#, &route.answer)?;
        self.text.push('}');
        Ok(())
    }

    /// Closes the request after its last route and gives back the room it will not use (before
    /// a stage builds its own copy of it).
    pub(crate) fn finish(mut self) -> Result<Self, Refusal> {
        self.write(r#"],"schema_version":"#, &SCHEMA_VERSION)?;
        self.text.push('}');
        self.text.shrink_to_fit();
        Ok(self)
    }

    /// The request's text.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// The forms of route `route` as the text holds them (`None` past the last route).
    pub(crate) fn forms_of(
        &self,
        route: usize,
    ) -> Result<Option<Vec<Option<SegmentForm>>>, Refusal> {
        let Some(range) = self.forms.get(route) else {
            return Ok(None);
        };
        serde_json::from_str(&self.text[range.clone()])
            .map(Some)
            .map_err(|error| {
                Refusal::internal(format!(
                    "a route-form request's forms did not read back: {error}"
                ))
            })
    }

    /// Every route's forms as the text holds them, in route order.
    pub(crate) fn all_forms(&self) -> Result<Vec<Vec<Option<SegmentForm>>>, Refusal> {
        (0..self.forms.len())
            .map(|route| Ok(self.forms_of(route)?.unwrap_or_default()))
            .collect()
    }

    /// The request with the forms of the routes `changed` names written as it holds them (`route
    /// → forms`), the rest of its text as it was.
    pub(crate) fn with_changed(
        self,
        changed: &BTreeMap<usize, Vec<Option<SegmentForm>>>,
    ) -> Result<Self, Refusal> {
        let mut rewritten = Self {
            text: String::with_capacity(self.text.len() + self.text.len() / 8),
            forms: Vec::with_capacity(self.forms.len()),
        };
        let mut copied = 0;
        for (route, range) in self.forms.iter().enumerate() {
            let Some(route_forms) = changed.get(&route) else {
                let start = rewritten.text.len() + (range.start - copied);
                rewritten.forms.push(start..start + range.len());
                continue;
            };
            rewritten.text.push_str(&self.text[copied..range.start]);
            let start = rewritten.text.len();
            rewritten.write("", route_forms)?;
            rewritten.forms.push(start..rewritten.text.len());
            copied = range.end;
        }
        rewritten.text.push_str(&self.text[copied..]);
        drop(self);
        rewritten.text.shrink_to_fit();
        Ok(rewritten)
    }

    fn write(&mut self, key: &str, value: &impl Serialize) -> Result<(), Refusal> {
        let json = serde_json::to_string(value).map_err(|error| {
            Refusal::internal(format!("a route-form request did not serialize: {error}"))
        })?;
        self.text.push_str(key);
        self.text.push_str(&json);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::route::{AnswerValue, RecordedAnswer, RouteFormRequest};
    use serde_json::Map;

    fn route(path: &[&str], forms: Vec<Option<SegmentForm>>) -> RecordedRoute {
        RecordedRoute {
            method: "GET".into(),
            segments: path.iter().map(|segment| (*segment).into()).collect(),
            decoded: path
                .iter()
                .map(|segment| segment.replace("%20", " ").into())
                .collect(),
            forms,
            answer: RecordedAnswer {
                status: 200,
                json: Some("object".into()),
                members: vec!["id".into(), "title \"é\"".into()],
                values: vec![AnswerValue {
                    pointer: "/id".into(),
                    in_array: false,
                    text: "7".into(),
                }],
                ..RecordedAnswer::default()
            },
        }
    }

    fn encoded(routes: &[RecordedRoute]) -> EncodedRequest {
        let mut request = EncodedRequest::new();
        for route in routes {
            request.push(route.clone()).unwrap();
        }
        request.finish().unwrap()
    }

    fn typed(routes: Vec<RecordedRoute>) -> String {
        serde_json::to_string(&RouteFormRequest {
            options: Map::new(),
            routes,
            schema_version: SCHEMA_VERSION,
        })
        .unwrap()
    }

    #[test]
    fn the_text_is_the_typed_request_serde_writes() {
        let routes = vec![
            route(&["api", "items"], vec![None, None]),
            route(
                &["api", "a%20b", "7"],
                vec![None, None, Some(SegmentForm::whole("numeric"))],
            ),
        ];
        assert_eq!(encoded(&routes).text(), typed(routes.clone()));
        assert_eq!(encoded(&[]).text(), typed(Vec::new()), "no routes");
    }

    #[test]
    fn rewritten_forms_change_only_the_forms() {
        let mut routes = vec![
            route(&["a", "b"], vec![None, None]),
            route(&["a", "c"], vec![None, None]),
            route(&["d"], vec![None]),
        ];
        let request = encoded(&routes);
        routes[1].forms[1] = Some(SegmentForm {
            rule: "listed-id".to_owned(),
            prefix: "x".to_owned(),
            suffix: String::new(),
            name: Some("collection".to_owned()),
        });
        let changed = BTreeMap::from([(1, routes[1].forms.clone())]);
        let rewritten = request.with_changed(&changed).unwrap();
        assert_eq!(rewritten.text(), typed(routes.clone()));
        routes[0].forms[0] = Some(SegmentForm::whole("numeric"));
        routes[2].forms[0] = Some(SegmentForm::whole("uuid"));
        let changed = BTreeMap::from([(0, routes[0].forms.clone()), (2, routes[2].forms.clone())]);
        let again = rewritten.with_changed(&changed).unwrap();
        assert_eq!(
            again.text(),
            typed(routes.clone()),
            "the ranges follow the first rewrite"
        );
        let forms: Vec<_> = routes.iter().map(|route| route.forms.clone()).collect();
        assert_eq!(again.all_forms().unwrap(), forms, "the forms read back");
        assert_eq!(again.forms_of(1).unwrap(), Some(forms[1].clone()));
        assert_eq!(again.forms_of(3).unwrap(), None, "past the last route");
    }
}

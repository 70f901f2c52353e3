//! The route-form request as the host holds it between stages: the JSON text that crosses the ABI,
//! with where each route's `forms` sit in it, so a stage's kept changes rewrite only the forms and
//! the request is never held both typed and encoded (issue 17: the route-form exchange was the
//! build's peak, the typed routes held beside their text while the stage decoded its own copy).
//!
//! The text is the [`RouteFormRequest`] serde writes (the same members in the same order, compact),
//! built one route at a time as each is made, so no list of typed routes is held.
//!
//! [`RouteFormRequest`]: rea_plugin_api::contracts::route::RouteFormRequest

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

    /// Writes a route and answers its forms, which the caller holds from now on.
    pub(crate) fn push(
        &mut self,
        route: RecordedRoute,
    ) -> Result<Vec<Option<SegmentForm>>, Refusal> {
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
        Ok(route.forms)
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

    /// The request with every route's forms written as `forms` holds them now (`forms[r]` is
    /// route `r`'s), the rest of its text as it was.
    pub(crate) fn with_forms(self, forms: &[Vec<Option<SegmentForm>>]) -> Result<Self, Refusal> {
        let mut rewritten = Self {
            text: String::with_capacity(self.text.len() + self.text.len() / 8),
            forms: Vec::with_capacity(self.forms.len()),
        };
        let mut copied = 0;
        for (range, route_forms) in self.forms.iter().zip(forms) {
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
            method: "GET".to_owned(),
            segments: path.iter().map(|segment| (*segment).to_owned()).collect(),
            decoded: path
                .iter()
                .map(|segment| segment.replace("%20", " "))
                .collect(),
            forms,
            answer: RecordedAnswer {
                status: 200,
                json: Some("object".to_owned()),
                members: vec!["id".to_owned(), "title \"é\"".to_owned()],
                values: vec![AnswerValue {
                    pointer: "/id".to_owned(),
                    in_array: false,
                    text: "7".to_owned(),
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
        let forms: Vec<_> = routes.iter().map(|route| route.forms.clone()).collect();
        let rewritten = request.with_forms(&forms).unwrap();
        assert_eq!(rewritten.text(), typed(routes.clone()));
        routes[0].forms[0] = Some(SegmentForm::whole("numeric"));
        let forms: Vec<_> = routes.iter().map(|route| route.forms.clone()).collect();
        let again = rewritten.with_forms(&forms).unwrap();
        assert_eq!(
            again.text(),
            typed(routes),
            "the ranges follow the first rewrite"
        );
    }
}

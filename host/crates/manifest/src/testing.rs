//! Hand-made capture records for unit tests (this crate's, and other crates' with the `testing`
//! feature).

use rea_plugin_api::contracts::capture::{
    Body, CaptureRecord, RecordHeader, RecordQuery, RecordRequest, RecordResponse,
};

use crate::manifest::{ManifestTool, PathParameter, QueryParameter};
use crate::segments::split_path;

/// The parameters of a path template: each `{rule}` segment a parameter `p<index>` of that rule,
/// observed with one value.
pub fn path_parameters(template: &str, observed: &str) -> Vec<PathParameter> {
    split_path(template)
        .iter()
        .enumerate()
        .filter(|(_, segment)| segment.starts_with('{'))
        .map(|(index, segment)| PathParameter {
            any_segment: false,
            name: format!("p{index}"),
            observed_values: vec![observed.into()],
            prefix: String::new(),
            rule: segment.trim_matches(|c| c == '{' || c == '}').to_owned(),
            segment_index: index,
            suffix: String::new(),
        })
        .collect()
}

/// A tool at a path template (each `{rule}` segment a parameter `p<index>` of that rule) taking
/// one query parameter, recorded by the given records.
pub fn templated_tool(
    method: &str,
    name: &str,
    template: &str,
    query: &str,
    ordinals: &[u64],
) -> ManifestTool {
    ManifestTool {
        method: method.to_owned(),
        name: name.to_owned(),
        path_parameters: path_parameters(template, "a"),
        path_template: template.to_owned(),
        query_parameters: vec![QueryParameter {
            name: query.to_owned(),
            records: 1,
            repeated: false,
        }],
        record_ordinals: ordinals.to_vec(),
        request_body: None,
        request_media_types: Vec::new(),
        response_body: None,
        response_media_types: Vec::new(),
        statuses: vec![200],
        inferred_from: None,
        trailing_slash_optional: false,
    }
}

/// A record builder: `record(0, "GET", "http://app/api/users/2?x=1")`.
#[derive(Debug)]
pub struct RecordBuilder(CaptureRecord);

/// Starts a record from an ordinal, a method and a URL (`scheme://host[:port]/path?query`).
pub fn record(ordinal: u64, method: &str, url: &str) -> RecordBuilder {
    let (scheme, rest) = url.split_once("://").expect("absolute URL");
    let (authority, path_and_query) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    let (path, query) = match path_and_query.split_once('?') {
        Some((path, raw)) => (path, Some(raw)),
        None => (path_and_query, None),
    };
    RecordBuilder(CaptureRecord {
        duration_ms: None,
        method: Some(method.into()),
        ordinal,
        origin: Some(format!("{scheme}://{authority}").into()),
        path: Some(path.into()),
        pointer: format!("/log/entries/{ordinal}").into(),
        query: query.map(|raw| RecordQuery {
            pairs: raw
                .split('&')
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                    Some((
                        crate::segments::form_decode(name).unwrap().into_owned(),
                        crate::segments::form_decode(value).unwrap().into_owned(),
                    ))
                })
                .collect(),
            raw: Some(raw.into()),
        }),
        request: RecordRequest {
            body: Body::Missing,
            headers: Vec::new(),
            http_version: None,
            media_type: None,
        },
        response: RecordResponse {
            body: Body::Missing,
            headers: Vec::new(),
            http_version: None,
            media_type: None,
            status: 200,
            status_text: None,
        },
        started: None,
        url: Some(url.into()),
    })
}

impl RecordBuilder {
    /// Sets the response status, media type and text body.
    pub fn answer(mut self, status: u16, media_type: &str, text: &str) -> Self {
        self.0.response.status = status;
        self.0.response.media_type = Some(media_type.into());
        self.0.response.body = Body::Text { text: text.into() };
        self
    }

    /// Sets a JSON answer.
    pub fn json(self, status: u16, text: &str) -> Self {
        self.answer(status, "application/json", text)
    }

    /// Sets the request body.
    pub fn send(mut self, media_type: &str, text: &str) -> Self {
        self.0.request.media_type = Some(media_type.into());
        self.0.request.body = Body::Text { text: text.into() };
        self
    }

    /// Sets the start time as recorded (and its parsed instant, when given).
    pub fn started(mut self, recorded: &str, instant: Option<&str>) -> Self {
        self.0.started = Some(rea_plugin_api::contracts::capture::StartTime {
            instant: instant.map(Into::into),
            recorded: recorded.into(),
        });
        self
    }

    /// Marks the request as carrying an excluded authentication header.
    pub fn authenticated(mut self) -> Self {
        self.0.request.headers.push(RecordHeader {
            excluded: Some("authentication".into()),
            name: Some("Authorization".into()),
            value: None,
        });
        self
    }

    /// The record.
    pub fn build(self) -> CaptureRecord {
        self.0
    }
}

/// Offered tools as `(method, name, path template, inferred from)`, what tests of inferred tools
/// compare.
#[cfg(test)]
pub(crate) fn inferred_lines(tools: &[ManifestTool]) -> Vec<(&str, &str, &str, Option<&str>)> {
    tools
        .iter()
        .map(|tool| {
            (
                tool.method.as_str(),
                tool.name.as_str(),
                tool.path_template.as_str(),
                tool.inferred_from.as_deref(),
            )
        })
        .collect()
}

/// Template rules with the built-in `fused-affix` route form, through the registry as a pipeline
/// gives it.
#[cfg(test)]
pub(crate) fn with_fused_affix(rules: &[&str]) -> crate::TemplateRules {
    use rea_plugin_route_forms as _;
    let registry = rea_registry::Registry::with_builtins().expect("registry");
    let form = registry
        .route_form_stage("fused-affix")
        .expect("the built-in route form");
    crate::TemplateRules::parse(rules)
        .expect("rules")
        .with_route_forms(vec![std::sync::Arc::new(form)])
}

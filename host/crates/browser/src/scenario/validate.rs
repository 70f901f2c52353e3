//! Validation of a scenario before any browser side effect: its JSON (duplicate members
//! refused), its shape against `schema.json` (unknown members, types, required members), then
//! what a schema cannot check: duplicate step ids, undeclared or unused secrets and unset secret
//! variables, a raw credential in a URL (userinfo, or a declared secret's value written in the
//! scenario), an origin outside `allowed_origins`, a stored value no earlier step saves, the
//! capture selection, and a launch executable that is not there. Every problem is reported, each
//! with the JSON pointer of what it is about.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use rea_plugin_api::json::{self, ParseOptions};
use serde_json::Value;
use url::Url;

use super::{Action, BrowserSpec, Pair, SCENARIO_SCHEMA, SCHEMA_JSON, Scenario, ValueSource};

/// The shortest secret value accepted: shorter ones would be found inside unrelated text.
pub const MIN_SECRET_CHARS: usize = 4;

/// One problem of a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The JSON pointer of what it is about (`""` for the whole document).
    pub pointer: String,
    /// One sentence, never holding a secret's value.
    pub message: String,
}

impl Problem {
    fn at(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

/// A scenario that passed every check, with what the checks resolved.
#[derive(Debug, Clone)]
pub struct ValidatedScenario {
    /// The scenario.
    pub scenario: Scenario,
    /// The scenario document as given (it names secrets by environment variable, never by value).
    pub document: Value,
    /// Each declared secret's id and value, in declaration order.
    pub secrets: Vec<(String, String)>,
    /// The start URL's origin (`scheme://host[:port]`).
    pub start_origin: String,
    /// The start origin and the allowed origins.
    pub origins: BTreeSet<String>,
    /// The launch executable, checked to exist.
    pub executable: Option<PathBuf>,
}

/// Parses and checks a scenario; `environment` reads an environment variable.
pub fn validate(
    bytes: &[u8],
    environment: &dyn Fn(&str) -> Option<String>,
) -> Result<ValidatedScenario, Vec<Problem>> {
    if let Err(error) = json::parse_with(bytes, &ParseOptions::default()) {
        return Err(vec![Problem::at(
            error.pointer.clone(),
            format!("the scenario is not JSON: {}", error.describe()),
        )]);
    }
    let document: Value = serde_json::from_slice(bytes).map_err(|error| {
        vec![Problem::at(
            "",
            format!("the scenario is not JSON: {error}"),
        )]
    })?;
    let shape = shape_problems(&document);
    if !shape.is_empty() {
        return Err(shape);
    }
    let scenario: Scenario = serde_json::from_value(document.clone()).map_err(|error| {
        vec![Problem::at(
            "",
            format!("the scenario is malformed: {error}"),
        )]
    })?;
    let mut problems = Vec::new();
    if scenario
        .schema
        .as_deref()
        .is_some_and(|schema| schema != SCENARIO_SCHEMA)
    {
        problems.push(Problem::at(
            "/schema",
            format!("only `{SCENARIO_SCHEMA}` scenarios are read"),
        ));
    }
    step_ids(&scenario, &mut problems);
    let secrets = secrets(&scenario, environment, &mut problems);
    literal_secrets(&document, &secrets, &mut problems);
    stored_values(&scenario, &mut problems);
    let (start_origin, origins) = origins(&scenario, &mut problems);
    capture_selection(&scenario, &mut problems);
    let executable = executable(&scenario, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(ValidatedScenario {
        scenario,
        document,
        secrets,
        start_origin,
        origins,
        executable,
    })
}

fn schema() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(SCHEMA_JSON).expect("schema.json is JSON");
        jsonschema::validator_for(&schema).expect("schema.json is a valid JSON Schema")
    })
}

/// The schema's findings: an unknown member at its own pointer; anything else at the value's.
fn shape_problems(document: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    for error in schema().iter_errors(document) {
        let pointer = error.instance_path().as_str().to_owned();
        match error.kind() {
            jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                for name in unexpected {
                    problems.push(Problem::at(
                        format!("{pointer}/{}", escape(name)),
                        format!("unknown member `{name}`"),
                    ));
                }
            }
            // The branch a failed `if` chose reports the problem itself.
            jsonschema::error::ValidationErrorKind::FalseSchema => {}
            _ => problems.push(Problem::at(pointer, error.masked().to_string())),
        }
    }
    problems.sort_by(|a, b| a.pointer.cmp(&b.pointer).then(a.message.cmp(&b.message)));
    problems.dedup();
    problems
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn step_ids(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let mut seen = BTreeMap::new();
    for (index, action) in scenario.actions.iter().enumerate() {
        if let Some(first) = seen.insert(action.step_id(), index) {
            seen.insert(action.step_id(), first);
            problems.push(Problem::at(
                format!("/actions/{index}/step_id"),
                format!(
                    "step id `{}` is used by step {first} already: step ids must be unique",
                    action.step_id()
                ),
            ));
        }
    }
}

/// Every value source of the scenario, with its pointer.
pub(crate) fn value_sources(scenario: &Scenario) -> Vec<(String, &ValueSource)> {
    fn pairs<'s>(pointer: String, pairs: &'s [Pair], out: &mut Vec<(String, &'s ValueSource)>) {
        for (index, pair) in pairs.iter().enumerate() {
            out.push((format!("{pointer}/{index}/value"), &pair.value));
        }
    }
    let mut out = Vec::new();
    pairs(
        "/start_url/query".to_owned(),
        &scenario.start_url.query,
        &mut out,
    );
    for (index, action) in scenario.actions.iter().enumerate() {
        let at = format!("/actions/{index}");
        match action {
            Action::Goto { destination, .. } => {
                pairs(
                    format!("{at}/destination/query"),
                    &destination.query,
                    &mut out,
                );
            }
            Action::Fill { value, .. } => out.push((format!("{at}/value"), value)),
            Action::Request {
                query,
                headers,
                body,
                ..
            } => {
                pairs(format!("{at}/query"), query, &mut out);
                pairs(format!("{at}/headers"), headers, &mut out);
                if let Some(body) = body {
                    out.push((format!("{at}/body"), body));
                }
            }
            _ => {}
        }
    }
    out
}

/// Resolves the declared secrets; reports duplicates, unset variables, and undeclared or unused
/// secrets.
fn secrets(
    scenario: &Scenario,
    environment: &dyn Fn(&str) -> Option<String>,
    problems: &mut Vec<Problem>,
) -> Vec<(String, String)> {
    let used: BTreeSet<&str> = value_sources(scenario)
        .into_iter()
        .filter_map(|(pointer, source)| match source {
            ValueSource::Secret { secret_id } => {
                if !scenario.secrets.iter().any(|s| &s.secret_id == secret_id) {
                    problems.push(Problem::at(
                        format!("{pointer}/secret_id"),
                        format!("secret `{secret_id}` is not declared in `secrets`"),
                    ));
                }
                Some(secret_id.as_str())
            }
            _ => None,
        })
        .collect();
    let mut resolved = Vec::new();
    let mut declared = BTreeSet::new();
    for (index, secret) in scenario.secrets.iter().enumerate() {
        let at = format!("/secrets/{index}");
        if !declared.insert(secret.secret_id.as_str()) {
            problems.push(Problem::at(
                format!("{at}/secret_id"),
                format!("secret `{}` is declared twice", secret.secret_id),
            ));
            continue;
        }
        if !used.contains(secret.secret_id.as_str()) {
            problems.push(Problem::at(
                at.clone(),
                format!(
                    "secret `{}` is declared but no step uses it",
                    secret.secret_id
                ),
            ));
        }
        match environment(&secret.environment_variable) {
            Some(value) if value.chars().count() >= MIN_SECRET_CHARS => {
                resolved.push((secret.secret_id.clone(), value));
            }
            Some(value) if !value.is_empty() => problems.push(Problem::at(
                format!("{at}/environment_variable"),
                format!(
                    "the value of `{}` (secret `{}`) is shorter than {MIN_SECRET_CHARS} characters: its marker would replace unrelated text",
                    secret.environment_variable, secret.secret_id
                ),
            )),
            _ => problems.push(Problem::at(
                format!("{at}/environment_variable"),
                format!(
                    "environment variable `{}` (secret `{}`) is not set or empty",
                    secret.environment_variable, secret.secret_id
                ),
            )),
        }
    }
    resolved
}

/// A declared secret's value written anywhere in the scenario is a raw credential.
fn literal_secrets(document: &Value, secrets: &[(String, String)], problems: &mut Vec<Problem>) {
    let mut stack = vec![(String::new(), document)];
    while let Some((pointer, value)) = stack.pop() {
        match value {
            Value::String(text) => {
                for (secret_id, secret) in secrets {
                    if text.contains(secret.as_str()) {
                        problems.push(Problem::at(
                            pointer.clone(),
                            format!(
                                "this string holds the value of secret `{secret_id}`: name it with {{\"source\": \"secret\", \"secret_id\": \"{secret_id}\"}} instead"
                            ),
                        ));
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    stack.push((format!("{pointer}/{index}"), item));
                }
            }
            Value::Object(members) => {
                for (name, member) in members {
                    stack.push((format!("{pointer}/{}", escape(name)), member));
                }
            }
            _ => {}
        }
    }
}

/// A `stored` value must be saved by an earlier step.
fn stored_values(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let sources = value_sources(scenario);
    for (pointer, source) in &sources {
        let ValueSource::Stored { name } = source else {
            continue;
        };
        let step: usize = pointer
            .strip_prefix("/actions/")
            .and_then(|rest| rest.split('/').next())
            .and_then(|index| index.parse().ok())
            .unwrap_or(0);
        let saved_before = pointer.starts_with("/actions/")
            && scenario.actions[..step]
                .iter()
                .any(|action| action.saves().is_some_and(|(saved, _, _)| saved == name));
        if !saved_before {
            problems.push(Problem::at(
                format!("{pointer}/name"),
                format!("no earlier step saves a value named `{name}`"),
            ));
        }
    }
}

/// The start origin and the allowed ones; every URL must be absolute `http(s)` without userinfo,
/// and every destination's origin allowed.
fn origins(scenario: &Scenario, problems: &mut Vec<Problem>) -> (String, BTreeSet<String>) {
    let start = checked_url(&scenario.start_url.url, "/start_url/url", problems);
    let start_origin = start
        .as_ref()
        .map(|url| url.origin().ascii_serialization())
        .unwrap_or_default();
    let mut origins = BTreeSet::from([start_origin.clone()]);
    for (index, origin) in scenario.allowed_origins.iter().enumerate() {
        let pointer = format!("/allowed_origins/{index}");
        if let Some(url) = checked_url(origin, &pointer, problems) {
            let serialized = url.origin().ascii_serialization();
            if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
                problems.push(Problem::at(
                    pointer,
                    "an allowed origin is `scheme://host[:port]`, without a path, query or fragment",
                ));
            } else {
                origins.insert(serialized);
            }
        }
    }
    for (index, action) in scenario.actions.iter().enumerate() {
        if let Action::Goto { destination, .. } = action {
            let pointer = format!("/actions/{index}/destination/url");
            if let Some(url) = checked_url(&destination.url, &pointer, problems) {
                let origin = url.origin().ascii_serialization();
                if !origins.contains(&origin) {
                    problems.push(Problem::at(
                        pointer,
                        format!(
                            "origin {origin} is outside the scenario's origins (the start URL's and `allowed_origins`)"
                        ),
                    ));
                }
            }
        }
    }
    (start_origin, origins)
}

fn checked_url(text: &str, pointer: &str, problems: &mut Vec<Problem>) -> Option<Url> {
    let Ok(url) = Url::parse(text) else {
        problems.push(Problem::at(pointer, "not an absolute URL"));
        return None;
    };
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        problems.push(Problem::at(
            pointer,
            "only absolute http and https URLs are driven",
        ));
        return None;
    }
    if !url.username().is_empty() || url.password().is_some() {
        problems.push(Problem::at(
            pointer,
            "the URL carries a raw credential (userinfo `user:password@`): sign in with steps, and take passwords from declared secrets",
        ));
        return None;
    }
    Some(url)
}

fn capture_selection(scenario: &Scenario, problems: &mut Vec<Problem>) {
    let capture = &scenario.capture;
    if !capture.events.iter().any(|family| family == "network") {
        problems.push(Problem::at(
            "/capture/events",
            "select the `network` event family: the records an environment is built from are network events",
        ));
    }
    if !capture.network.response_body && !capture.network.header_values {
        problems.push(Problem::at(
            "/capture/network",
            "tools are chosen by response media type, so select `response_body` or `header_values` (an environment needs `response_body`)",
        ));
    }
}

fn executable(scenario: &Scenario, problems: &mut Vec<Problem>) -> Option<PathBuf> {
    let BrowserSpec::Launch { executable_path } = &scenario.browser else {
        return None;
    };
    let pointer = "/browser/executable_path";
    let path = PathBuf::from(executable_path);
    if !path.is_absolute() {
        problems.push(Problem::at(
            pointer,
            "the executable path must be absolute (no search path is consulted)",
        ));
        return None;
    }
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(&path) {
        Ok(metadata) if metadata.is_file() && metadata.permissions().mode() & 0o111 != 0 => {
            Some(path)
        }
        Ok(_) => {
            problems.push(Problem::at(
                pointer,
                format!("{} is not an executable file", path.display()),
            ));
            None
        }
        Err(error) => {
            problems.push(Problem::at(
                pointer,
                format!("no executable at {}: {error}", path.display()),
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Action, BrowserSpec};

    /// The spec's example scenario, with a request step from the spec's example after it.
    const EXAMPLE: &str = r#"{
"browser": { "mode": "launch", "executable_path": "/bin/sh" },
"start_url": { "url": "http://127.0.0.1:5230/auth", "query": [] },
"secrets": [
{ "secret_id": "admin_password", "environment_variable": "APP_PASSWORD" }
],
"actions": [
{
"step_id": "user",
"action": "fill",
"locator": { "kind": "css", "selector": "input[name=username]" },
"value": { "source": "literal", "value": "admin" }
},
{
"step_id": "password",
"action": "fill",
"locator": { "kind": "css", "selector": "input[type=password]" },
"value": { "source": "secret", "secret_id": "admin_password" }
},
{
"step_id": "sign-in",
"action": "press",
"locator": { "kind": "css", "selector": "input[type=password]" },
"key": "Enter"
},
{
"step_id": "first-memo",
"action": "goto",
"destination": { "url": "http://127.0.0.1:5230/m/1", "query": [] },
"wait_until": "load"
},
{
"step_id": "create-folder-1",
"action": "request",
"method": "POST",
"path": "/api/folders",
"headers": [
{
"name": "X-CSRFToken",
"value": { "source": "cookie", "name": "csrftoken" }
}
],
"json": { "title": "Scratch folder 1" },
"expected_status": [200, 201]
}
],
"capture": {
"events": ["network"],
"network": {
"request_body": true,
"response_body": true,
"header_values": false
},
"limits": {
"max_network_body_bytes": 262144,
"max_network_body_allocation_bytes": 12582912,
"max_event_allocation_bytes": 12582912,
"max_total_event_allocation_bytes": 67108864
}
}
}"#;

    fn environment(name: &str) -> Option<String> {
        (name == "APP_PASSWORD").then(|| "correct-horse-12".to_owned())
    }

    #[test]
    fn the_spec_example_is_accepted() {
        let validated = validate(EXAMPLE.as_bytes(), &environment).expect("accepted");
        let scenario = &validated.scenario;
        // contract: SCENARIO-011
        assert!(
            matches!(&scenario.browser, BrowserSpec::Launch { executable_path } if executable_path == "/bin/sh")
        );
        assert_eq!(validated.start_origin, "http://127.0.0.1:5230");
        assert_eq!(
            scenario.capture.limits.resolved().max_network_body_bytes,
            262_144
        );
        // contract: SCENARIO-013
        assert_eq!(
            validated.secrets,
            [("admin_password".to_owned(), "correct-horse-12".to_owned())]
        );
        let names: Vec<&str> = scenario.actions.iter().map(Action::name).collect();
        // contract: SCENARIO-012
        assert_eq!(names, ["fill", "fill", "press", "goto", "request"]);
        let Action::Request {
            headers,
            json,
            expected_status,
            ..
        } = &scenario.actions[4]
        else {
            panic!("a request step");
        };
        // contract: SCENARIO-026
        assert_eq!(expected_status.as_deref(), Some(&[200, 201][..]));
        assert_eq!(json.as_ref().unwrap()["title"], "Scratch folder 1");
        // contract: SCENARIO-025
        assert!(
            matches!(&headers[0].value, crate::scenario::ValueSource::Cookie { name } if name == "csrftoken")
        );
    }

    #[test]
    fn defaults_are_the_spec_limits() {
        let limits = crate::scenario::LimitsSpec::default().resolved();
        // contract: SCENARIO-003
        assert_eq!(limits.max_network_body_bytes, 65_536);
        // contract: SCENARIO-006
        assert_eq!(limits.max_network_body_allocation_bytes, 1_048_576);
        // contract: SCENARIO-007
        assert_eq!(limits.max_event_allocation_bytes, 4_194_304);
        // contract: SCENARIO-008
        assert_eq!(limits.max_total_event_allocation_bytes, 16_777_216);
    }

    #[test]
    fn a_request_path_is_fixed_text() {
        let dynamic = EXAMPLE.replace(
            r#""path": "/api/folders""#,
            r#""path": {"source": "stored", "name": "folder"}"#,
        );
        let problems = validate(dynamic.as_bytes(), &environment).unwrap_err();
        // contract: SCENARIO-029
        assert!(
            problems
                .iter()
                .any(|problem| problem.pointer == "/actions/4/path"),
            "{problems:?}"
        );
        let unsaved = EXAMPLE.replace(
            r#""value": { "source": "cookie", "name": "csrftoken" }"#,
            r#""value": { "source": "stored", "name": "token" }"#,
        );
        let problems = validate(unsaved.as_bytes(), &environment).unwrap_err();
        assert_eq!(problems[0].pointer, "/actions/4/headers/0/value/name");
    }
}

//! The one JSON Schema checker of rea's tools: tool arguments against a tool's input schema,
//! before any tool runs (the environment's tools here, `rea mcp`'s own and plugin tools in
//! `rea-self-mcp`). The checking is the `jsonschema` crate's (the browser scenario's validation
//! uses it too); this module maps its findings to rea's field issues.
//!
//! Every keyword of the schema's draft is checked (2020-12 when the schema names none), with one
//! rule of rea's own: `integer` means a number written without fraction or exponent that fits 64
//! bits (the handlers read such values as native integers), so `3.0` is not an integer. A schema
//! that is not valid JSON Schema refuses every value (`invalid_schema`). Every problem is
//! reported as a [`FieldIssue`] located by JSON pointer, in a stable order: `required` members
//! first, then members in the order given, each value's own problems before its members'; a
//! value of the wrong type reports only that.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::Location;
use jsonschema::{Keyword, ValidationError, Validator};
use serde::Serialize;
use serde_json::{Map, Value};

/// One problem with one field, located by JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldIssue {
    /// JSON pointer of the field (into the request params or the tool arguments).
    pub path: String,
    /// Stable snake_case code: `required`, `unknown_field`, `wrong_type`, `not_allowed`,
    /// `too_small`, `not_found`, `invalid_schema`.
    pub code: String,
    /// One sentence.
    pub message: String,
}

impl FieldIssue {
    /// An issue at a pointer.
    pub fn new(path: impl Into<String>, code: &str, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

/// Escapes one reference token of a JSON pointer.
pub fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Validates a value against a schema, collecting every issue under `path`.
pub fn validate(value: &Value, schema: &Map<String, Value>, path: &str) -> Vec<FieldIssue> {
    let validator = match compiled(schema) {
        Ok(validator) => validator,
        Err(message) => return vec![FieldIssue::new(path, "invalid_schema", message)],
    };
    let mut found: Vec<Found> = Vec::new();
    for error in validator.iter_errors(value) {
        found.extend(issues_of(&error, value, schema, path));
    }
    ordered(found)
}

/// Validates an object's members against an object schema (`properties`, `required`,
/// `additionalProperties`), collecting every issue under `path`: [`validate`] for a value known
/// to be an object.
pub fn validate_members(
    object: &Map<String, Value>,
    schema: &Map<String, Value>,
    path: &str,
) -> Vec<FieldIssue> {
    validate(&Value::Object(object.clone()), schema, path)
}

/// Whether `value` fits `schema` (no issue at all).
pub fn fits(value: &Value, schema: &Map<String, Value>) -> bool {
    compiled(schema).is_ok_and(|validator| validator.is_valid(value))
}

/// A schema's validator, compiled once and kept by its caller (a tool keeps its input schema's),
/// so checking a value costs no look-up: [`compiled`] finds a validator by the schema's whole
/// serialized text, under a lock.
pub struct CompiledSchema(Option<Arc<Validator>>);

impl CompiledSchema {
    /// Compiles `schema` (a schema that does not compile fits nothing).
    pub fn new(schema: &Map<String, Value>) -> Self {
        Self(compiled(schema).ok())
    }

    /// Whether `value` fits the schema: no issue at all, as [`validate`] finds none, without
    /// collecting issues.
    pub fn fits(&self, value: &Value) -> bool {
        self.0
            .as_ref()
            .is_some_and(|validator| validator.is_valid(value))
    }
}

/// The most compiled schemas kept; past it the cache starts afresh.
const CACHE_LIMIT: usize = 512;

/// The validator of a schema, compiled once per distinct schema (tools keep theirs for the
/// server's life); a schema that does not compile is the crate's reason.
fn compiled(schema: &Map<String, Value>) -> Result<Arc<Validator>, String> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Validator>>>> = OnceLock::new();
    let key = serde_json::to_string(schema).unwrap_or_default();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(validator) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(Arc::clone(validator));
    }
    let validator = jsonschema::options()
        .with_keyword("type", integer_aware_type)
        .build(&Value::Object(schema.clone()))
        .map(Arc::new)
        .map_err(|error| format!("the tool's input schema is not a valid JSON Schema: {error}"))?;
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(key, Arc::clone(&validator));
    Ok(validator)
}

/// `type` with rea's `integer` (written without fraction or exponent, 64 bits).
struct TypeKeyword {
    allowed: Vec<String>,
}

fn integer_aware_type<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _path: Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    let allowed = match value {
        Value::String(name) => vec![name.clone()],
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    Ok(Box::new(TypeKeyword { allowed }))
}

impl<'i> Keyword<'i> for TypeKeyword {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        Err(ValidationError::custom(format!(
            "{}, not {}",
            self.allowed.join(" or "),
            type_name(instance)
        )))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        self.allowed.is_empty() || self.allowed.iter().any(|name| type_allows(name, instance))
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_allows(expected: &str, value: &Value) -> bool {
    let actual = type_name(value);
    match expected {
        "number" => matches!(actual, "number" | "integer"),
        _ => actual == expected,
    }
}

/// The unescaped reference tokens of a JSON pointer.
fn tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(rea_plugin_api::json::unescape_pointer_segment)
        .collect()
}

/// Where an issue sorts: per level `(2, member or item position)`, then `(0, keyword rank)` for
/// the value's own problems or `(1, position in required)` for a missing member.
fn position_key(value: &Value, tokens: &[String]) -> Vec<(u8, usize)> {
    let mut key = Vec::with_capacity(tokens.len() + 1);
    let mut node = Some(value);
    for token in tokens {
        let (position, next) = match node {
            Some(Value::Object(object)) => (
                object
                    .keys()
                    .position(|name| name == token)
                    .unwrap_or(usize::MAX),
                object.get(token),
            ),
            Some(Value::Array(items)) => {
                let index = token.parse::<usize>().unwrap_or(usize::MAX);
                (index, items.get(index))
            }
            _ => (usize::MAX, None),
        };
        key.push((2, position));
        node = next;
    }
    key
}

/// The schema value at a keyword location (a JSON pointer into the schema).
fn schema_at<'s>(schema: &'s Map<String, Value>, location: &Location) -> Option<&'s Value> {
    let tokens = tokens(location.as_str());
    let (first, rest) = tokens.split_first()?;
    let mut node = schema.get(first)?;
    for token in rest {
        node = match node {
            Value::Object(object) => object.get(token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// One mapped finding and where it sorts.
struct Found {
    key: Vec<(u8, usize)>,
    issue: FieldIssue,
    /// The value has none of the types allowed (nothing else about it is reported).
    wrong_type: bool,
}

/// The field issues of one of the crate's errors, under `prefix`.
fn issues_of(
    error: &ValidationError<'_>,
    value: &Value,
    schema: &Map<String, Value>,
    prefix: &str,
) -> Vec<Found> {
    let at = tokens(error.instance_path().as_str());
    let pointer = format!("{prefix}{}", error.instance_path().as_str());
    let shown = if pointer.is_empty() {
        "the value".to_owned()
    } else {
        pointer.clone()
    };
    let own = |rank: usize, code: &str, message: String| {
        let mut key = position_key(value, &at);
        key.push((0, rank));
        vec![Found {
            key,
            issue: FieldIssue::new(pointer.clone(), code, message),
            wrong_type: rank == 0,
        }]
    };
    match error.kind() {
        ValidationErrorKind::Custom { keyword, message } if keyword == "type" => {
            own(0, "wrong_type", format!("{shown} must be {message}"))
        }
        ValidationErrorKind::Type { .. } => own(
            0,
            "wrong_type",
            format!("{shown} must be {}", allowed_types(error, value, schema)),
        ),
        ValidationErrorKind::Enum { options } => {
            let names: Vec<String> = match options.as_ref() {
                Value::Array(options) => options.iter().map(Value::to_string).collect(),
                other => vec![other.to_string()],
            };
            own(
                1,
                "not_allowed",
                format!("{shown} must be one of {}", names.join(", ")),
            )
        }
        ValidationErrorKind::AnyOf { .. } => own(
            2,
            "wrong_type",
            format!("{shown} fits none of the schemas `anyOf` allows"),
        ),
        ValidationErrorKind::OneOfNotValid { .. } => own(
            3,
            "wrong_type",
            format!("{shown} fits none of the schemas `oneOf` allows"),
        ),
        ValidationErrorKind::OneOfMultipleValid { .. } => own(
            3,
            "wrong_type",
            format!("{shown} fits more than one of the schemas `oneOf` allows"),
        ),
        ValidationErrorKind::Minimum { limit } => {
            let limit = limit.as_f64().unwrap_or_default();
            own(4, "too_small", format!("{shown} must be at least {limit}"))
        }
        ValidationErrorKind::Required { property } => {
            vec![missing_member(
                property, &at, &pointer, value, schema, error,
            )]
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|name| unknown_member(name, &at, &pointer, value))
            .collect(),
        ValidationErrorKind::FalseSchema => {
            own(5, "not_allowed", format!("{shown} is not allowed"))
        }
        _ => own(5, "not_allowed", format!("{shown}: {}", error.masked())),
    }
}

/// `ALLOWED, not ACTUAL` for the crate's own type check (an array schema's fused `type`).
fn allowed_types(
    error: &ValidationError<'_>,
    value: &Value,
    schema: &Map<String, Value>,
) -> String {
    let allowed = match schema_at(schema, error.schema_path()) {
        Some(Value::String(name)) => name.clone(),
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "array".to_owned(),
    };
    let actual = value
        .pointer(error.instance_path().as_str())
        .map_or("null", type_name);
    format!("{allowed}, not {actual}")
}

/// A `required` member that is missing, sorted by its place in `required`.
fn missing_member(
    property: &Value,
    at: &[String],
    pointer: &str,
    value: &Value,
    schema: &Map<String, Value>,
    error: &ValidationError<'_>,
) -> Found {
    let name = property.as_str().unwrap_or_default();
    let rank = match schema_at(schema, error.schema_path()) {
        Some(Value::Array(required)) => required
            .iter()
            .position(|item| item == property)
            .unwrap_or(usize::MAX),
        _ => usize::MAX,
    };
    let mut key = position_key(value, at);
    key.push((1, rank));
    Found {
        key,
        issue: FieldIssue::new(
            format!("{pointer}/{}", pointer_token(name)),
            "required",
            format!("`{name}` is required"),
        ),
        wrong_type: false,
    }
}

/// A member the schema does not name (`additionalProperties: false`), sorted where it stands.
fn unknown_member(name: &str, at: &[String], pointer: &str, value: &Value) -> Found {
    let mut member = at.to_vec();
    member.push(name.to_owned());
    let mut key = position_key(value, &member);
    key.push((0, 0));
    Found {
        key,
        issue: FieldIssue::new(
            format!("{pointer}/{}", pointer_token(name)),
            "unknown_field",
            format!("`{name}` is not a known field"),
        ),
        wrong_type: false,
    }
}

/// The issues in their stable order; a value of the wrong type reports only that.
fn ordered(mut found: Vec<Found>) -> Vec<FieldIssue> {
    let mistyped: Vec<String> = found
        .iter()
        .filter(|found| found.wrong_type)
        .map(|found| found.issue.path.clone())
        .collect();
    found.retain(|found| {
        found.wrong_type
            || !mistyped.iter().any(|path| {
                found.issue.path == *path
                    || found
                        .issue
                        .path
                        .strip_prefix(path.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
    });
    found.sort_by(|a, b| a.key.cmp(&b.key));
    found.into_iter().map(|found| found.issue).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => panic!("not an object"),
        }
    }

    fn schema() -> Map<String, Value> {
        object(json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["list", "render"]},
                "page": {"type": "integer", "minimum": 1},
                "arguments": {"type": "object", "additionalProperties": {"type": "string"}},
                "shape": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
            },
            "required": ["action"],
            "additionalProperties": false
        }))
    }

    #[test]
    fn every_issue_is_reported_with_its_pointer() {
        let issues = validate(
            &json!({"page": 0, "arguments": {"a/b": 3}, "extra": true, "shape": [1]}),
            &schema(),
            "",
        );
        let found: Vec<(&str, &str)> = issues
            .iter()
            .map(|issue| (issue.path.as_str(), issue.code.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("/action", "required"),
                ("/arguments/a~1b", "wrong_type"),
                ("/extra", "unknown_field"),
                ("/page", "too_small"),
                ("/shape", "wrong_type"),
            ]
        );
    }

    #[test]
    fn a_valid_value_has_no_issues() {
        assert!(validate(&json!({"action": "list"}), &schema(), "").is_empty());
        assert!(fits(&json!({"action": "list", "shape": ["a"]}), &schema()));
        assert!(fits(&json!({"action": "list", "shape": "a"}), &schema()));
        let wrong = validate(&json!({"action": "lst"}), &schema(), "");
        assert_eq!(wrong[0].code, "not_allowed");
    }

    #[test]
    fn integers_are_numbers_without_fraction_and_types_may_be_listed() {
        let integer = object(json!({"type": "integer"}));
        assert!(fits(&json!(3), &integer));
        assert!(!fits(&json!(3.5), &integer));
        assert!(!fits(&json!(3.0), &integer));
        let number = object(json!({"type": "number"}));
        assert!(fits(&json!(3), &number) && fits(&json!(3.5), &number));
        let listed = object(
            json!({"type": ["string", "number", "boolean", "array"], "items": {"type": "string"}}),
        );
        assert!(fits(&json!(["a"]), &listed) && fits(&json!(true), &listed));
        assert!(!fits(&json!([1]), &listed));
        assert!(!fits(&json!(null), &listed));
        let invalid = validate(&json!(null), &object(json!({"type": "any"})), "/x");
        assert_eq!(invalid.len(), 1);
        assert_eq!(
            (invalid[0].path.as_str(), invalid[0].code.as_str()),
            ("/x", "invalid_schema")
        );
    }

    #[test]
    fn a_wrong_type_says_what_was_allowed_and_what_was_given() {
        let schema = object(json!({
            "type": "object",
            "properties": {
                "ids": {"type": "array", "items": {"type": "string"}, "enum": [["a"]]},
                "page": {"type": "integer", "enum": [1, 2]}
            }
        }));
        let issues = validate(&json!({"ids": "a", "page": 3.0}), &schema, "/arguments");
        let found: Vec<(&str, &str, &str)> = issues
            .iter()
            .map(|issue| {
                (
                    issue.path.as_str(),
                    issue.code.as_str(),
                    issue.message.as_str(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "/arguments/ids",
                    "wrong_type",
                    "/arguments/ids must be array, not string"
                ),
                (
                    "/arguments/page",
                    "wrong_type",
                    "/arguments/page must be integer, not number"
                ),
            ]
        );
    }
}

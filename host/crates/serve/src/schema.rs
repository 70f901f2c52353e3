//! The one JSON Schema checker of rea: tool arguments against a tool's input schema, before any
//! tool runs (the environment's tools here, `rea mcp`'s own and plugin tools in `rea-self-mcp`).
//!
//! It covers the subset rea's tool schemas use: `type` (one name or a list), `enum`,
//! `anyOf`/`oneOf` (some branch fits), `minimum`, `items`, `properties`, `required`, and
//! `additionalProperties` (`false`, or a schema for the other members). Other keywords never
//! refuse. `integer` means a number written without fraction or exponent that fits 64 bits (the
//! handlers read such values as native integers). Every problem is reported as a [`FieldIssue`]
//! located by JSON pointer, in a stable order: `required` members first, then members in the
//! order given, each value's own problems before its members'.

use serde::Serialize;
use serde_json::{Map, Value};

/// One problem with one field, located by JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldIssue {
    /// JSON pointer of the field (into the request params or the tool arguments).
    pub path: String,
    /// Stable snake_case code: `required`, `unknown_field`, `wrong_type`, `not_allowed`,
    /// `too_small`, `not_found`.
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
    let mut issues = Vec::new();
    check(value, schema, path, &mut issues);
    issues
}

/// Validates an object's members against an object schema (`properties`, `required`,
/// `additionalProperties`), collecting every issue under `path`: [`validate`] for a value known
/// to be an object, without copying it.
pub fn validate_members(
    object: &Map<String, Value>,
    schema: &Map<String, Value>,
    path: &str,
) -> Vec<FieldIssue> {
    let mut issues = Vec::new();
    check_members(object, schema, path, &mut issues);
    issues
}

/// Whether `value` fits `schema` (no issue at all).
pub fn fits(value: &Value, schema: &Map<String, Value>) -> bool {
    validate(value, schema, "").is_empty()
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
        "null" | "boolean" | "integer" | "string" | "array" | "object" => actual == expected,
        "number" => matches!(actual, "number" | "integer"),
        // Not a JSON Schema type name: not checked.
        _ => true,
    }
}

fn check(value: &Value, schema: &Map<String, Value>, path: &str, issues: &mut Vec<FieldIssue>) {
    let shown = if path.is_empty() { "the value" } else { path };
    if !check_type(value, schema, shown, path, issues) {
        return;
    }
    if let Some(Value::Array(options)) = schema.get("enum")
        && !options.contains(value)
    {
        let names: Vec<String> = options.iter().map(Value::to_string).collect();
        issues.push(FieldIssue::new(
            path,
            "not_allowed",
            format!("{shown} must be one of {}", names.join(", ")),
        ));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key)
            && !branches
                .iter()
                .filter_map(Value::as_object)
                .any(|branch| fits(value, branch))
        {
            issues.push(FieldIssue::new(
                path,
                "wrong_type",
                format!("{shown} fits none of the schemas `{key}` allows"),
            ));
        }
    }
    if let (Some(minimum), Some(number)) = (
        schema.get("minimum").and_then(Value::as_f64),
        value.as_f64(),
    ) && number < minimum
    {
        issues.push(FieldIssue::new(
            path,
            "too_small",
            format!("{shown} must be at least {minimum}"),
        ));
    }
    if let (Some(Value::Object(item_schema)), Value::Array(items)) = (schema.get("items"), value) {
        for (index, item) in items.iter().enumerate() {
            check(item, item_schema, &format!("{path}/{index}"), issues);
        }
    }
    if let Value::Object(object) = value {
        check_members(object, schema, path, issues);
    }
}

/// Checks `type`; `false` (with the issue recorded) when the value has none of the types allowed.
fn check_type(
    value: &Value,
    schema: &Map<String, Value>,
    shown: &str,
    path: &str,
    issues: &mut Vec<FieldIssue>,
) -> bool {
    let allowed: Vec<&str> = match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if allowed.is_empty() || allowed.iter().any(|name| type_allows(name, value)) {
        return true;
    }
    issues.push(FieldIssue::new(
        path,
        "wrong_type",
        format!(
            "{shown} must be {}, not {}",
            allowed.join(" or "),
            type_name(value)
        ),
    ));
    false
}

fn check_members(
    object: &Map<String, Value>,
    schema: &Map<String, Value>,
    path: &str,
    issues: &mut Vec<FieldIssue>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                issues.push(FieldIssue::new(
                    format!("{path}/{}", pointer_token(name)),
                    "required",
                    format!("`{name}` is required"),
                ));
            }
        }
    }
    for (key, member) in object {
        let member_path = format!("{path}/{}", pointer_token(key));
        match properties.and_then(|properties| properties.get(key)) {
            Some(Value::Object(member_schema)) => {
                check(member, member_schema, &member_path, issues)
            }
            Some(_) => {}
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => issues.push(FieldIssue::new(
                    member_path,
                    "unknown_field",
                    format!("`{key}` is not a known field"),
                )),
                Some(Value::Object(extra)) => check(member, extra, &member_path, issues),
                _ => {}
            },
        }
    }
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
        assert!(fits(&json!(null), &object(json!({"type": "any"}))));
    }
}

//! Field diagnostics: the issue list every schema refusal carries, and a validator for the small
//! JSON Schema subset rea's own tool schemas use (`type`, `properties`, `required`,
//! `additionalProperties`, `enum`, `items`, `minimum`).

use serde::Serialize;
use serde_json::{Map, Value, json};

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

/// The `data` member of an error or refusal carrying issues: `{"issues": [...]}`.
pub fn issues_data(issues: &[FieldIssue]) -> Value {
    json!({ "issues": issues })
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
    actual == expected || (expected == "number" && actual == "integer")
}

fn check(value: &Value, schema: &Map<String, Value>, path: &str, issues: &mut Vec<FieldIssue>) {
    let shown = if path.is_empty() { "the value" } else { path };
    if let Some(expected) = schema.get("type") {
        let allowed: Vec<&str> = match expected {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|name| type_allows(name, value)) {
            issues.push(FieldIssue::new(
                path,
                "wrong_type",
                format!(
                    "{shown} must be {}, not {}",
                    allowed.join(" or "),
                    type_name(value)
                ),
            ));
            return;
        }
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
    let Value::Object(object) = value else {
        return;
    };
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

    fn schema() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["list", "render"]},
                "page": {"type": "integer", "minimum": 1},
                "arguments": {"type": "object", "additionalProperties": {"type": "string"}}
            },
            "required": ["action"],
            "additionalProperties": false
        })
        .as_object()
        .cloned()
        .expect("object")
    }

    #[test]
    fn every_issue_is_reported_with_its_pointer() {
        let issues = validate(
            &json!({"page": 0, "arguments": {"a/b": 3}, "extra": true}),
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
            ]
        );
    }

    #[test]
    fn a_valid_value_has_no_issues() {
        assert!(validate(&json!({"action": "list"}), &schema(), "").is_empty());
        let wrong = validate(&json!({"action": "lst"}), &schema(), "");
        assert_eq!(wrong[0].code, "not_allowed");
    }
}

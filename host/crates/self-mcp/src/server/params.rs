//! Field diagnostics for schema-invalid params of `prompts/get`, `prompts/list`,
//! `completion/complete` and `tools/list`.
//!
//! The SDK parses a request whose params do not fit its method's schema as a custom request, so
//! such requests reach the handler with their raw params; this module names every offending
//! field so the reply is `-32602` with `data.issues` (path, code, message) and the caller can
//! correct the named fields and retry on the same connection.

use serde_json::{Map, Value};

use crate::schema::{FieldIssue, pointer_token};

/// The methods whose schema-invalid params get field diagnostics.
pub const CHECKED_METHODS: &[&str] = &[
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "tools/list",
    "tools/call",
];

/// Every schema issue of `params` for `method` (pointers are into `params`).
pub fn issues(method: &str, params: Option<&Value>) -> Vec<FieldIssue> {
    let mut issues = Vec::new();
    let object = match params {
        None | Some(Value::Null) => None,
        Some(Value::Object(object)) => Some(object),
        Some(_) => {
            issues.push(FieldIssue::new(
                "",
                "wrong_type",
                "params must be an object",
            ));
            return issues;
        }
    };
    if let Some(object) = object
        && let Some(meta) = object.get("_meta")
        && !meta.is_object()
    {
        issues.push(FieldIssue::new(
            "/_meta",
            "wrong_type",
            "`_meta` must be an object",
        ));
    }
    match method {
        "prompts/list" | "tools/list" => cursor_issues(object, &mut issues),
        "prompts/get" | "tools/call" => named_call_issues(method, object, &mut issues),
        "completion/complete" => completion_issues(object, &mut issues),
        _ => {}
    }
    issues
}

/// `prompts/list` and `tools/list`: an optional string `cursor`.
fn cursor_issues(object: Option<&Map<String, Value>>, issues: &mut Vec<FieldIssue>) {
    if let Some(cursor) = object.and_then(|object| object.get("cursor"))
        && !cursor.is_string()
    {
        issues.push(FieldIssue::new(
            "/cursor",
            "wrong_type",
            "`cursor` must be a string",
        ));
    }
}

/// `prompts/get` and `tools/call`: a string `name` and an optional `arguments` object (of
/// strings, for a prompt).
fn named_call_issues(
    method: &str,
    object: Option<&Map<String, Value>>,
    issues: &mut Vec<FieldIssue>,
) {
    let Some(object) = object else {
        issues.push(FieldIssue::new("/name", "required", "`name` is required"));
        return;
    };
    string_member(object, "name", "", true, issues);
    match object.get("arguments") {
        None | Some(Value::Object(_)) => {}
        Some(_) => issues.push(FieldIssue::new(
            "/arguments",
            "wrong_type",
            "`arguments` must be an object",
        )),
    }
    if method == "prompts/get"
        && let Some(Value::Object(arguments)) = object.get("arguments")
    {
        string_values(arguments, "/arguments", issues);
    }
}

/// `completion/complete`: a `ref`, an `argument` and an optional `context`.
fn completion_issues(object: Option<&Map<String, Value>>, issues: &mut Vec<FieldIssue>) {
    let Some(object) = object else {
        issues.push(FieldIssue::new("/ref", "required", "`ref` is required"));
        issues.push(FieldIssue::new(
            "/argument",
            "required",
            "`argument` is required",
        ));
        return;
    };
    completion_ref_issues(object.get("ref"), issues);
    completion_argument_issues(object.get("argument"), issues);
    completion_context_issues(object.get("context"), issues);
}

/// A completion's `ref`: an object naming a prompt (`name`) or a resource (`uri`).
fn completion_ref_issues(reference: Option<&Value>, issues: &mut Vec<FieldIssue>) {
    match reference {
        None => issues.push(FieldIssue::new("/ref", "required", "`ref` is required")),
        Some(Value::Object(reference)) => match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => string_member(reference, "name", "/ref", true, issues),
            Some("ref/resource") => string_member(reference, "uri", "/ref", true, issues),
            Some(_) => issues.push(FieldIssue::new(
                "/ref/type",
                "not_allowed",
                "`ref.type` must be `ref/prompt` or `ref/resource`",
            )),
            None => issues.push(FieldIssue::new(
                "/ref/type",
                "required",
                "`ref.type` is required and must be a string",
            )),
        },
        Some(_) => issues.push(FieldIssue::new(
            "/ref",
            "wrong_type",
            "`ref` must be an object",
        )),
    }
}

/// A completion's `argument`: an object with string `name` and `value`.
fn completion_argument_issues(argument: Option<&Value>, issues: &mut Vec<FieldIssue>) {
    match argument {
        None => issues.push(FieldIssue::new(
            "/argument",
            "required",
            "`argument` is required",
        )),
        Some(Value::Object(argument)) => {
            string_member(argument, "name", "/argument", true, issues);
            string_member(argument, "value", "/argument", true, issues);
        }
        Some(_) => issues.push(FieldIssue::new(
            "/argument",
            "wrong_type",
            "`argument` must be an object",
        )),
    }
}

/// A completion's optional `context`: an object whose optional `arguments` are strings.
fn completion_context_issues(context: Option<&Value>, issues: &mut Vec<FieldIssue>) {
    match context {
        None => {}
        Some(Value::Object(context)) => match context.get("arguments") {
            None => {}
            Some(Value::Object(arguments)) => {
                string_values(arguments, "/context/arguments", issues);
            }
            Some(_) => issues.push(FieldIssue::new(
                "/context/arguments",
                "wrong_type",
                "`context.arguments` must be an object of strings",
            )),
        },
        Some(_) => issues.push(FieldIssue::new(
            "/context",
            "wrong_type",
            "`context` must be an object",
        )),
    }
}

fn string_member(
    object: &Map<String, Value>,
    name: &str,
    prefix: &str,
    required: bool,
    issues: &mut Vec<FieldIssue>,
) {
    let path = format!("{prefix}/{name}");
    match object.get(name) {
        Some(Value::String(_)) => {}
        Some(_) => issues.push(FieldIssue::new(
            path,
            "wrong_type",
            format!("`{name}` must be a string"),
        )),
        None if required => issues.push(FieldIssue::new(
            path,
            "required",
            format!("`{name}` is required"),
        )),
        None => {}
    }
}

fn string_values(object: &Map<String, Value>, prefix: &str, issues: &mut Vec<FieldIssue>) {
    for (key, value) in object {
        if !value.is_string() {
            issues.push(FieldIssue::new(
                format!("{prefix}/{}", pointer_token(key)),
                "wrong_type",
                format!("`{key}` must be a string"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(method: &str, params: Value) -> Vec<String> {
        issues(method, Some(&params))
            .into_iter()
            .map(|issue| issue.path)
            .collect()
    }

    // contract: PROMPTS-071, PROMPTS-072, PROMPTS-073, COMPLETION-048
    #[test]
    fn each_offending_field_is_named() {
        assert_eq!(paths("prompts/get", json!({"name": 5})), ["/name"]);
        assert_eq!(paths("prompts/list", json!({"cursor": 1})), ["/cursor"]);
        assert_eq!(paths("tools/list", json!({"cursor": []})), ["/cursor"]);
        assert_eq!(
            paths(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt"}, "argument": {"name": "procedure", "value": 3},
                       "context": {"arguments": {"document": 1}}})
            ),
            [
                "/ref/name",
                "/argument/value",
                "/context/arguments/document"
            ]
        );
        assert!(paths("prompts/list", json!({})).is_empty());
    }
}

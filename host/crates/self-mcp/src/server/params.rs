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
        "prompts/list" | "tools/list" => {
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
        "prompts/get" | "tools/call" => {
            let Some(object) = object else {
                issues.push(FieldIssue::new("/name", "required", "`name` is required"));
                return issues;
            };
            string_member(object, "name", "", true, &mut issues);
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
                string_values(arguments, "/arguments", &mut issues);
            }
        }
        "completion/complete" => {
            let Some(object) = object else {
                issues.push(FieldIssue::new("/ref", "required", "`ref` is required"));
                issues.push(FieldIssue::new(
                    "/argument",
                    "required",
                    "`argument` is required",
                ));
                return issues;
            };
            match object.get("ref") {
                None => issues.push(FieldIssue::new("/ref", "required", "`ref` is required")),
                Some(Value::Object(reference)) => {
                    match reference.get("type").and_then(Value::as_str) {
                        Some("ref/prompt") => {
                            string_member(reference, "name", "/ref", true, &mut issues)
                        }
                        Some("ref/resource") => {
                            string_member(reference, "uri", "/ref", true, &mut issues)
                        }
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
                    }
                }
                Some(_) => issues.push(FieldIssue::new(
                    "/ref",
                    "wrong_type",
                    "`ref` must be an object",
                )),
            }
            match object.get("argument") {
                None => issues.push(FieldIssue::new(
                    "/argument",
                    "required",
                    "`argument` is required",
                )),
                Some(Value::Object(argument)) => {
                    string_member(argument, "name", "/argument", true, &mut issues);
                    string_member(argument, "value", "/argument", true, &mut issues);
                }
                Some(_) => issues.push(FieldIssue::new(
                    "/argument",
                    "wrong_type",
                    "`argument` must be an object",
                )),
            }
            match object.get("context") {
                None => {}
                Some(Value::Object(context)) => match context.get("arguments") {
                    None => {}
                    Some(Value::Object(arguments)) => {
                        string_values(arguments, "/context/arguments", &mut issues);
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
        _ => {}
    }
    issues
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

//! Tool arguments checked against the tool's input schema before the backend sees them, by the
//! one schema checker ([`crate::schema`]), its issues summarized as the environment's refusal
//! lists: arguments the schema does not name, required ones missing, and ones whose value does not
//! fit. A misspelled parameter is therefore refused as an invalid argument rather than silently
//! ignored.
//!
//! It also reads the order a caller sent its arguments in ([`SentOrder`]), from their JSON text:
//! the argument object keeps no order, and an answer repeating the call's query may repeat it
//! as sent.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::schema::{FieldIssue, validate_members};

/// Why arguments do not fit a schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgumentError {
    /// One sentence naming every problem.
    pub message: String,
    /// Arguments the schema does not name, in the order given.
    pub unknown: Vec<String>,
    /// Required arguments that are missing, in schema order.
    pub missing: Vec<String>,
    /// Arguments whose value does not fit, in the order given.
    pub mistyped: Vec<String>,
}

/// At most this many bytes of accepted argument names are listed in an error message.
const ACCEPTED_LIST_BUDGET: usize = 1024;

/// Checks `arguments` against the object schema `schema`.
pub fn check(
    schema: &Map<String, Value>,
    arguments: &Map<String, Value>,
) -> Result<(), ArgumentError> {
    let issues = validate_members(arguments, schema, "");
    if issues.is_empty() {
        return Ok(());
    }
    let (unknown, missing, mistyped) = summarize(&issues);
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut problems = Vec::new();
    if !unknown.is_empty() {
        problems.push(format!(
            "unknown argument{} {} (accepted: {})",
            plural(unknown.len()),
            quoted(&unknown),
            accepted(properties)
        ));
    }
    if !missing.is_empty() {
        problems.push(format!(
            "missing required argument{} {}",
            plural(missing.len()),
            quoted(&missing)
        ));
    }
    if !mistyped.is_empty() {
        problems.push(format!(
            "argument{} {} of a type the input schema does not allow",
            plural(mistyped.len()),
            quoted(&mistyped)
        ));
    }
    // An object argument (a request body) says which of its members do not fit.
    for key in &mistyped {
        if let (Some(Value::Object(members)), Some(Value::Object(property))) =
            (arguments.get(key), properties.get(key))
            && let Err(nested) = check(property, members)
        {
            problems.push(format!(
                "in {}: {}",
                quoted(std::slice::from_ref(key)),
                nested.message.trim_start_matches("invalid arguments: ")
            ));
        }
    }
    Err(ArgumentError {
        message: format!("invalid arguments: {}", problems.join("; ")),
        unknown,
        missing,
        mistyped,
    })
}

/// The issues as argument names: unknown, missing, and mistyped (any other issue inside an
/// argument's value), each once, in the order the checker found them.
fn summarize(issues: &[FieldIssue]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (mut unknown, mut missing, mut mistyped) = (Vec::new(), Vec::new(), Vec::<String>::new());
    for issue in issues {
        let mut tokens = issue
            .path
            .strip_prefix('/')
            .unwrap_or(&issue.path)
            .split('/');
        let name = tokens
            .next()
            .unwrap_or_default()
            .replace("~1", "/")
            .replace("~0", "~");
        let top_level = tokens.next().is_none();
        match issue.code.as_str() {
            "unknown_field" if top_level => unknown.push(name),
            "required" if top_level => missing.push(name),
            _ if !mistyped.contains(&name) => mistyped.push(name),
            _ => {}
        }
    }
    (unknown, missing, mistyped)
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|name| Value::String(name.clone()).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn accepted(properties: &Map<String, Value>) -> String {
    if properties.is_empty() {
        return "none".to_owned();
    }
    let mut out = String::new();
    for (shown, name) in properties.keys().enumerate() {
        let quoted = Value::String(name.clone()).to_string();
        if out.len() + quoted.len() > ACCEPTED_LIST_BUDGET {
            out.push_str(&format!(", … and {} more", properties.len() - shown));
            return out;
        }
        if shown > 0 {
            out.push_str(", ");
        }
        out.push_str(&quoted);
    }
    out
}

/// The names of a call's arguments in the order its caller wrote them, read from the arguments'
/// JSON text by serde's own map walk (each value skipped unread).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SentOrder(pub Vec<String>);

impl SentOrder {
    /// The order of the members of a JSON object's text; `None` when the text is no object.
    pub fn of_text(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }

    /// The order of the members of `params.arguments` in a JSON-RPC message's text; `None` when
    /// the message holds no argument object.
    pub fn of_message(text: &[u8]) -> Option<Self> {
        #[derive(serde::Deserialize)]
        struct Message<'a> {
            #[serde(borrow)]
            params: Option<Params<'a>>,
        }
        #[derive(serde::Deserialize)]
        struct Params<'a> {
            #[serde(borrow)]
            arguments: Option<&'a serde_json::value::RawValue>,
        }
        let message: Message<'_> = serde_json::from_slice(text).ok()?;
        Self::of_text(message.params?.arguments?.get())
    }
}

impl<'de> serde::Deserialize<'de> for SentOrder {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(KeysVisitor)
    }
}

/// Visits an object's keys in order, skipping their values.
struct KeysVisitor;

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = SentOrder;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<SentOrder, A::Error> {
        let mut names: Vec<String> = Vec::new();
        while let Some(name) = members.next_key::<String>()? {
            members.next_value::<IgnoredAny>()?;
            names.push(name);
        }
        Ok(SentOrder(names))
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
                "body": {"type": "object", "properties": {"name": {"type": "string"}}},
                "id": {"type": "string"},
                "page": {"anyOf": [
                    {"type": "string"}, {"type": "number"}, {"type": "boolean"},
                    {"type": "array", "items": {"type": "string"}}
                ]}
            },
            "required": ["id"],
            "additionalProperties": false
        }))
    }

    #[test]
    fn arguments_the_schema_names_with_fitting_values_pass() {
        for args in [
            json!({"id": "2"}),
            json!({"id": "2", "page": 3}),
            json!({"id": "2", "page": true}),
            json!({"id": "2", "page": ["a", "b"]}),
            json!({"id": "2", "body": {"name": "x", "other": 1}}),
        ] {
            assert_eq!(check(&schema(), &object(args.clone())), Ok(()), "{args}");
        }
    }

    #[test]
    fn unknown_missing_and_mistyped_arguments_are_named() {
        let error = check(&schema(), &object(json!({"idd": "2", "page": [1]}))).unwrap_err();
        assert_eq!(error.unknown, vec!["idd"]);
        assert_eq!(error.missing, vec!["id"]);
        assert_eq!(error.mistyped, vec!["page"]);
        assert_eq!(
            error.message,
            "invalid arguments: unknown argument \"idd\" (accepted: \"body\", \"id\", \"page\"); \
             missing required argument \"id\"; argument \"page\" of a type the input schema does not allow"
        );
    }

    #[test]
    fn an_open_schema_accepts_other_arguments() {
        let open = object(json!({"type": "object", "properties": {}}));
        assert_eq!(check(&open, &object(json!({"x": 1}))), Ok(()));
    }

    #[test]
    fn the_accepted_list_is_bounded() {
        let mut properties = Map::new();
        for index in 0..1500 {
            properties.insert(
                format!("query_parameter_{index:04}"),
                json!({"type": "string"}),
            );
        }
        let schema = object(json!({"properties": properties, "additionalProperties": false}));
        let error = check(&schema, &object(json!({"nope": 1}))).unwrap_err();
        assert!(error.message.len() < 1024 + 200, "{}", error.message.len());
        assert!(error.message.ends_with("more)"), "{}", error.message);
    }

    #[test]
    fn the_sent_order_is_read_from_the_arguments_text() {
        use super::SentOrder;
        let text = r#"{"sort": "-title", "page[number]": 2, "filter": {"a": [1, "}"]}, "b": null}"#;
        let order = SentOrder::of_text(text).expect("an object");
        assert_eq!(order.0, ["sort", "page[number]", "filter", "b"]);
        assert_eq!(SentOrder::of_text("[1]"), None);
        assert_eq!(SentOrder::of_text("{}"), Some(SentOrder::default()));
        let message = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"z":1,"a":2}}}"#;
        assert_eq!(
            SentOrder::of_message(message).expect("arguments").0,
            ["z", "a"]
        );
        let bare = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#;
        assert_eq!(SentOrder::of_message(bare), None);
    }
}

//! Value-free body shapes: the kinds of recorded bodies and their top-level members' JSON types.
//!
//! A body is read as JSON or as a form by its media type, or by its shape when the media type
//! names neither (text starting with `{` or `[` that parses is JSON; `a=1&b=2` is a form).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::capture::Body;
use serde_json::Value;

use crate::manifest::BodyShape;
use crate::media;
use crate::segments::form_decode;

/// Accumulates the shape of several bodies.
#[derive(Debug, Default)]
pub(crate) struct ShapeBuilder {
    kinds: BTreeSet<&'static str>,
    members: BTreeMap<String, BTreeSet<&'static str>>,
    item_members: BTreeMap<String, BTreeSet<&'static str>>,
    records: u64,
}

/// The JSON type name of a value.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl ShapeBuilder {
    /// Adds one recorded body with its media type.
    pub(crate) fn add(&mut self, body: &Body, media_type: Option<&str>) {
        match body {
            Body::Missing | Body::ReportedNull | Body::Excluded { .. } => {}
            Body::Base64 { .. } => {
                self.records += 1;
                self.kinds.insert("binary");
            }
            Body::Text { text } => {
                self.records += 1;
                self.add_text(text, media_type);
            }
        }
    }

    fn add_text(&mut self, text: &str, media_type: Option<&str>) {
        if text.is_empty() {
            self.kinds.insert("empty");
            return;
        }
        let essence = media_type.map(media::essence).unwrap_or_default();
        let names_json = essence == "application/json" || essence.ends_with("+json");
        let names_form = essence == "application/x-www-form-urlencoded";
        let trimmed = text.trim_start();
        if names_json || (!names_form && (trimmed.starts_with('{') || trimmed.starts_with('['))) {
            match serde_json::from_str::<Value>(text) {
                Ok(value) => self.add_json(&value),
                Err(_) if names_json => {
                    self.kinds.insert("unreadable");
                }
                Err(_) => {
                    self.kinds.insert("text");
                }
            }
            return;
        }
        if names_form || (essence.is_empty() || essence == "text/plain") && looks_like_form(text) {
            self.kinds.insert("form");
            for pair in text.split('&').filter(|pair| !pair.is_empty()) {
                let name = pair.split_once('=').map_or(pair, |(name, _)| name);
                let name =
                    form_decode(name).map_or_else(|| name.to_owned(), |name| name.into_owned());
                self.members.entry(name).or_default().insert("string");
            }
            return;
        }
        self.kinds.insert("text");
    }

    fn add_json(&mut self, value: &Value) {
        match value {
            Value::Object(object) => {
                self.kinds.insert("json-object");
                for (name, member) in object {
                    self.members
                        .entry(name.clone())
                        .or_default()
                        .insert(json_type(member));
                }
            }
            Value::Array(items) => {
                self.kinds.insert("json-array");
                for item in items {
                    if let Value::Object(object) = item {
                        for (name, member) in object {
                            self.item_members
                                .entry(name.clone())
                                .or_default()
                                .insert(json_type(member));
                        }
                    }
                }
            }
            _ => {
                self.kinds.insert("json-scalar");
            }
        }
    }

    /// The shape, or `None` when no body was recorded.
    pub(crate) fn finish(self) -> Option<BodyShape> {
        if self.records == 0 {
            return None;
        }
        let convert = |map: BTreeMap<String, BTreeSet<&'static str>>| {
            map.into_iter()
                .map(|(name, types)| (name, types.into_iter().map(str::to_owned).collect()))
                .collect()
        };
        Some(BodyShape {
            item_members: convert(self.item_members),
            kinds: self.kinds.into_iter().map(str::to_owned).collect(),
            members: convert(self.members),
            records: self.records,
        })
    }
}

fn looks_like_form(text: &str) -> bool {
    !text.contains(char::is_whitespace)
        && text.split('&').all(|pair| {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name);
            pair.contains('=') && !name.is_empty()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(text: &str) -> Body {
        Body::Text { text: text.into() }
    }

    #[test]
    fn shapes_keep_members_and_types_but_no_values() {
        // contract: MANIFEST-008, MANIFEST-009
        let mut builder = ShapeBuilder::default();
        builder.add(
            &text(r#"{"title":"secret title","views":3}"#),
            Some("application/json"),
        );
        builder.add(&text(r#"{"title":null}"#), None);
        builder.add(&Body::Missing, None);
        let shape = builder.finish().unwrap();
        assert_eq!(shape.records, 2);
        assert_eq!(shape.kinds, vec!["json-object"]);
        assert_eq!(shape.members["title"], vec!["null", "string"]);
        assert_eq!(shape.members["views"], vec!["number"]);
        let json = serde_json::to_string(&shape).unwrap();
        assert!(!json.contains("secret"));
    }

    #[test]
    fn forms_arrays_text_and_binary_are_told_apart() {
        let mut builder = ShapeBuilder::default();
        builder.add(
            &text("a=1&b+c=2"),
            Some("application/x-www-form-urlencoded"),
        );
        builder.add(&text(r#"[{"id":1},{"id":"x"}]"#), Some("application/json"));
        builder.add(&text("hello there"), Some("text/plain"));
        builder.add(
            &Body::Base64 {
                base64: "AAE=".into(),
                bytes: 2,
            },
            None,
        );
        builder.add(&text(""), None);
        let shape = builder.finish().unwrap();
        assert_eq!(
            shape.kinds,
            vec!["binary", "empty", "form", "json-array", "text"]
        );
        assert_eq!(shape.members["b c"], vec!["string"]);
        assert_eq!(shape.item_members["id"], vec!["number", "string"]);
        assert!(ShapeBuilder::default().finish().is_none());
    }
}

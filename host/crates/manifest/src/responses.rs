//! Recorded response bodies read as JSON, once per record, for the projection's structural
//! questions: does a response echo a path segment (sibling variance, parameter names), what shape
//! does a body have. Bodies that are not JSON-like, not UTF-8 text or do not parse are `None`.

use std::cell::OnceCell;

use rea_plugin_api::contracts::capture::{Body, CaptureRecord};
use serde_json::Value;

use crate::media;

/// Lazily parsed JSON response bodies of a slice of records.
pub(crate) struct ParsedResponses<'a> {
    records: &'a [&'a CaptureRecord],
    cache: Vec<OnceCell<Option<Value>>>,
}

impl<'a> ParsedResponses<'a> {
    pub(crate) fn new(records: &'a [&'a CaptureRecord]) -> Self {
        Self {
            records,
            cache: (0..records.len()).map(|_| OnceCell::new()).collect(),
        }
    }

    /// The records whose responses these are.
    pub(crate) fn records(&self) -> &'a [&'a CaptureRecord] {
        self.records
    }

    /// The record's response body as JSON when its media type is JSON-like and its text parses.
    pub(crate) fn json(&self, index: usize) -> Option<&Value> {
        self.cache[index].get_or_init(|| self.parse(index)).as_ref()
    }

    /// The record's response body parsed (not kept).
    fn parse(&self, index: usize) -> Option<Value> {
        let response = &self.records[index].response;
        if !media::is_json_like(response.media_type.as_deref()) {
            return None;
        }
        match &response.body {
            Body::Text { text } => serde_json::from_str(text).ok(),
            _ => None,
        }
    }

    /// `read` of the record's response body as [`Self::success_json`] answers it, parsed for the
    /// call only when no earlier question kept it: a pass over every record (the route-form
    /// request) does not hold every body's tree at once.
    pub(crate) fn with_success_json<T>(
        &self,
        index: usize,
        read: impl FnOnce(Option<&Value>) -> T,
    ) -> T {
        if !(200..300).contains(&self.records[index].response.status) {
            return read(None);
        }
        match self.cache[index].get() {
            Some(kept) => read(kept.as_ref()),
            None => read(self.parse(index).as_ref()),
        }
    }

    /// The record's response body as JSON when its status is 2xx.
    pub(crate) fn success_json(&self, index: usize) -> Option<&Value> {
        let status = self.records[index].response.status;
        if (200..300).contains(&status) {
            self.json(index)
        } else {
            None
        }
    }
}

/// The names of members that echo `text`: scalar members of the root object, and scalar members
/// of objects the root object holds (one envelope level, as `{"data": {"id": …}}`), whose JSON
/// text (a string's content, a number's or boolean's spelling) equals `text`. In document order
/// of the parsed value (sorted when serde_json sorts maps), without repeats.
pub(crate) fn echo_members(body: &Value, text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let Value::Object(root) = body else {
        return names;
    };
    let mut push = |name: &str| {
        if !names.iter().any(|known| known == name) {
            names.push(name.to_owned());
        }
    };
    for (name, value) in root {
        if scalar_equals(value, text) {
            push(name);
        }
    }
    for value in root.values() {
        if let Value::Object(inner) = value {
            for (name, value) in inner {
                if scalar_equals(value, text) {
                    push(name);
                }
            }
        }
    }
    names
}

/// Whether a member of `body` echoes `text` as an identity would ([`echo_members`]), leaving out
/// a `type` member beside an `id` member in the same object: that pair is a resource identifier
/// (JSON:API's `{"data": {"type": "issue", "id": "7"}}`, Roundup's items), whose `type` names the
/// collection every item of it shares, not the item the path names.
pub(crate) fn echoes_identity(body: &Value, text: &str) -> bool {
    let Value::Object(root) = body else {
        return false;
    };
    let echoes_in = |object: &serde_json::Map<String, Value>| {
        let identifier_pair = object.contains_key("id");
        object
            .iter()
            .any(|(name, value)| scalar_equals(value, text) && !(identifier_pair && name == "type"))
    };
    echoes_in(root)
        || root.values().any(|value| match value {
            Value::Object(inner) => echoes_in(inner),
            _ => false,
        })
}

fn scalar_equals(value: &Value, text: &str) -> bool {
    match value {
        Value::String(string) => string == text,
        Value::Number(number) => number.to_string() == text,
        Value::Bool(flag) => (if *flag { "true" } else { "false" }) == text,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_body_read_for_one_question_is_kept_only_when_an_earlier_one_kept_it() {
        let answered = crate::testing::record(1, "GET", "http://app.test/api/items/7")
            .json(200, r#"{"id": 7}"#)
            .build();
        let missing = crate::testing::record(2, "GET", "http://app.test/api/items/8")
            .json(404, r#"{"error": "missing"}"#)
            .build();
        let records = [&answered, &missing];
        let responses = ParsedResponses::new(&records);
        let id = |json: Option<&Value>| json.map(|body| body["id"].clone());
        assert_eq!(responses.with_success_json(0, id), Some(json!(7)));
        assert!(responses.cache[0].get().is_none());
        assert!(responses.with_success_json(1, |json| json.is_none()));
        assert!(responses.json(0).is_some());
        assert_eq!(responses.with_success_json(0, id), Some(json!(7)));
    }

    #[test]
    fn echoes_are_found_at_the_root_and_one_envelope_down() {
        let body =
            json!({"id": 2, "login": "probe", "data": {"uid": "abc"}, "list": [{"id": "x"}]});
        assert_eq!(echo_members(&body, "2"), vec!["id"]);
        assert_eq!(echo_members(&body, "abc"), vec!["uid"]);
        assert!(echo_members(&body, "x").is_empty());
        assert!(echo_members(&json!([{"id": 2}]), "2").is_empty());
    }

    #[test]
    fn a_type_beside_an_id_names_no_identity() {
        let item = json!({"data": {"id": "7", "type": "issue", "link": "/data/issue/7"}});
        assert!(
            !echoes_identity(&item, "issue"),
            "a resource identifier's type"
        );
        assert!(echoes_identity(&item, "7"));
        let kind = json!({"name": "python3", "type": "kernel"});
        assert!(
            echoes_identity(&kind, "kernel"),
            "a type with no id beside it echoes"
        );
        assert!(!echoes_identity(&json!([{"id": 2}]), "2"));
    }
}

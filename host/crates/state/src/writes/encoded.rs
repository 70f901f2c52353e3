//! A tool's learn request encoded once for all the rule stages of pass 3: the stages read the
//! contract's JSON text (what crosses the plugin ABI), and between two stages only the options and
//! each call's `unexplained` and `earlier` change. Each call's other members and the request's
//! other members are encoded once, as JSON object text without those members; a stage's request
//! is those texts joined, with its options and the calls' current residuals spliced in as members
//! of their objects (the same JSON a whole encoding gives, members in another order). Encoding
//! the whole request per stage, as a clone handed to the stage's worker, grew faster than the
//! calls (issue 12: allocator time over the clones and trees).

use std::collections::BTreeMap;

use rea_plugin_api::contracts::rule::LearnRequest;
use serde::Serialize;
use serde_json::Value;

/// What a stage's request text is built from (see the module docs).
#[derive(Debug)]
pub(super) struct EncodedRequest {
    /// Each call as an object's text, without `unexplained` and `earlier`.
    calls: Vec<String>,
    /// The request as an object's text, without `calls` and `options`.
    rest: String,
}

impl EncodedRequest {
    /// The request's calls and other members, encoded.
    pub(super) fn new(request: &LearnRequest) -> Result<Self, serde_json::Error> {
        let calls = request
            .calls
            .iter()
            .map(|call| object_text_without(call, &["unexplained", "earlier"]))
            .collect::<Result<Vec<String>, _>>()?;
        let rest: LearnRequest = LearnRequest {
            calls: Vec::new(),
            clock_anchors: request.clock_anchors.clone(),
            effect: request.effect,
            identity_field: request.identity_field.clone(),
            options: BTreeMap::new(),
            schema_version: request.schema_version,
            tool: request.tool.clone(),
        };
        Ok(Self {
            calls,
            rest: object_text_without(&rest, &["calls", "options"])?,
        })
    }

    /// How many calls the request holds.
    pub(super) fn len(&self) -> usize {
        self.calls.len()
    }

    /// A stage's request text: its options, and per call (in order) what is still unexplained
    /// (nothing for a call past `residuals`) and what the stages before it explained (left out
    /// when empty, as a whole encoding does).
    pub(super) fn text(
        &self,
        options: &BTreeMap<String, Value>,
        residuals: &[BTreeMap<String, Value>],
        earlier: &[BTreeMap<String, Value>],
    ) -> Result<String, serde_json::Error> {
        let mut text = String::with_capacity(
            self.rest.len() + self.calls.iter().map(|call| call.len() + 64).sum::<usize>(),
        );
        text.push_str("{\"calls\":[");
        for (at, call) in self.calls.iter().enumerate() {
            if at > 0 {
                text.push(',');
            }
            text.push_str("{\"unexplained\":");
            match residuals.get(at) {
                Some(residual) => text.push_str(&serde_json::to_string(residual)?),
                None => text.push_str("{}"),
            }
            if let Some(earlier) = earlier.get(at).filter(|earlier| !earlier.is_empty()) {
                text.push_str(",\"earlier\":");
                text.push_str(&serde_json::to_string(earlier)?);
            }
            close_with(&mut text, call);
        }
        text.push_str("],\"options\":");
        text.push_str(&serde_json::to_string(options)?);
        close_with(&mut text, &self.rest);
        Ok(text)
    }
}

/// `value` encoded as a JSON object's text without the named members.
fn object_text_without(
    value: &impl Serialize,
    left_out: &[&str],
) -> Result<String, serde_json::Error> {
    let mut value = serde_json::to_value(value)?;
    if let Value::Object(members) = &mut value {
        for name in left_out {
            members.remove(*name);
        }
    }
    serde_json::to_string(&value)
}

/// Ends an object whose members `text` opened with the members of the object text `object`.
fn close_with(text: &mut String, object: &str) {
    match object.strip_prefix('{') {
        Some(members) if members != "}" => {
            text.push(',');
            text.push_str(members);
        }
        _ => text.push('}'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{Effect, ObservedCall, ToolRef};
    use serde_json::json;

    fn call(ordinal: u64, body: Value) -> ObservedCall {
        ObservedCall {
            duration_ms: None,
            entity_after: Some(json!({"id": ordinal, "title": "a \"quoted\" title"})),
            entity_before: None,
            held_max: BTreeMap::new(),
            given_max: BTreeMap::new(),
            path_params: Vec::new(),
            reads_after: Vec::new(),
            record_ordinal: ordinal,
            request_body: Some(body),
            response_body: None,
            response_status: 201,
            started: None,
            position_before: None,
            unexplained: BTreeMap::new(),
            earlier: BTreeMap::new(),
            dependents: Vec::new(),
            store_counters: BTreeMap::new(),
            member_order: vec!["title".into()],
            held_entities: Vec::new(),
            refused_before: vec![409],
        }
    }

    #[test]
    fn a_stage_text_decodes_as_the_whole_request_with_its_residuals_and_options() {
        let mut request = LearnRequest {
            calls: vec![
                call(3, json!({"title": "x"})),
                call(5, json!({"unexplained": {}})),
            ],
            clock_anchors: Vec::new(),
            effect: Effect::Create,
            identity_field: Some("id".into()),
            options: BTreeMap::new(),
            schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
            tool: ToolRef {
                method: "POST".into(),
                name: "post_items".into(),
                path_template: "/items".into(),
            },
        };
        let encoded = EncodedRequest::new(&request).expect("encoded");
        assert_eq!(encoded.len(), 2);
        let options = BTreeMap::from([("field".to_owned(), json!("id"))]);
        let residuals = vec![
            BTreeMap::from([("/id".to_owned(), json!(3))]),
            BTreeMap::new(),
        ];
        let earlier = vec![
            BTreeMap::new(),
            BTreeMap::from([("/id".to_owned(), json!(5))]),
        ];
        let text = encoded.text(&options, &residuals, &earlier).expect("text");
        request.options = options;
        request.calls[0].unexplained = residuals[0].clone();
        request.calls[1].earlier = earlier[1].clone();
        let decoded: LearnRequest = serde_json::from_str(&text).expect("decodes");
        assert_eq!(decoded, request);
        let whole: Value = serde_json::to_value(&request).expect("whole");
        assert_eq!(serde_json::from_str::<Value>(&text).expect("json"), whole);
    }
}

//! Request builders for a rule's unit tests (the `testing` feature; enable it in
//! `[dev-dependencies]`): the requests the host sends, built without writing every member.
//!
//! ```ignore
//! use rea_plugin_api::contracts::rule::Effect;
//! use rea_plugin_api::testing::{apply_request, expect_learned, learn_request, observed_call};
//! let request = learn_request(Effect::Update)
//!     .call(observed_call(8).before(json!({"id": 1, "version": 3})).after(json!({"id": 1, "version": 4})))
//!     .build();
//! let (explains, rule) = expect_learned(MyRule.learn(&request).unwrap());
//! let applied = MyRule.apply(&apply_request(rule).entity_before(json!({"version": 41})).build());
//! ```

use std::fmt::Debug;

use serde_json::Value;

use crate::contracts::SCHEMA_VERSION;
use crate::contracts::rule::{
    ApplyRequest, ClockAnchor, Effect, LearnOutcome, LearnRequest, NoOptions, ObservedCall,
    ObservedDependent, ObservedRead, ReadKind, ServedCall, ToolRef,
};

/// A tool: its method, its path template, and a name made of both (`patch /notes/{id}`).
pub fn tool(method: &str, path_template: &str) -> ToolRef {
    ToolRef {
        method: method.to_owned(),
        name: format!("{} {path_template}", method.to_ascii_lowercase()),
        path_template: path_template.to_owned(),
    }
}

/// The tool a builder uses unless told otherwise: one for the effect (`POST /items` for a create,
/// `PATCH /items/{id}` for an update, …).
fn tool_for(effect: Effect) -> ToolRef {
    match effect {
        Effect::Create => tool("POST", "/items"),
        Effect::Update | Effect::Document => tool("PATCH", "/items/{id}"),
        Effect::Action => tool("POST", "/items/{id}/action"),
        Effect::Delete => tool("DELETE", "/items/{id}"),
        Effect::BulkUpdate => tool("PATCH", "/items"),
        Effect::BulkDelete => tool("DELETE", "/items"),
    }
}

/// Builds a [`LearnRequest`].
#[derive(Debug, Clone)]
pub struct LearnRequestBuilder<O> {
    request: LearnRequest<O>,
}

/// A learn request for a tool of `effect`: no calls yet, identity field `id`, no options.
pub fn learn_request(effect: Effect) -> LearnRequestBuilder<NoOptions> {
    LearnRequestBuilder {
        request: LearnRequest {
            calls: Vec::new(),
            clock_anchors: Vec::new(),
            effect,
            identity_field: Some("id".to_owned()),
            options: NoOptions {},
            schema_version: SCHEMA_VERSION,
            tool: tool_for(effect),
        },
    }
}

impl<O> LearnRequestBuilder<O> {
    /// The rule's options.
    pub fn options<P>(self, options: P) -> LearnRequestBuilder<P> {
        LearnRequestBuilder {
            request: self.request.with_options(options),
        }
    }

    /// Adds a recorded call (an [`ObservedCallBuilder`] or an [`ObservedCall`]).
    pub fn call(mut self, call: impl Into<ObservedCall>) -> Self {
        self.request.calls.push(call.into());
        self
    }

    /// Adds recorded calls, in order.
    pub fn calls<C: Into<ObservedCall>>(mut self, calls: impl IntoIterator<Item = C>) -> Self {
        self.request.calls.extend(calls.into_iter().map(Into::into));
        self
    }

    /// Adds a clock anchor.
    pub fn anchor(mut self, record_ordinal: u64, instant: &str, duration_ms: Option<u64>) -> Self {
        self.request.clock_anchors.push(ClockAnchor {
            record_ordinal,
            instant: instant.to_owned(),
            duration_ms,
        });
        self
    }

    /// The identity field of the written type (`None`: unknown).
    pub fn identity_field(mut self, field: Option<&str>) -> Self {
        self.request.identity_field = field.map(str::to_owned);
        self
    }

    /// The tool.
    pub fn tool(mut self, tool: ToolRef) -> Self {
        self.request.tool = tool;
        self
    }

    /// The request.
    pub fn build(self) -> LearnRequest<O> {
        self.request
    }
}

/// Builds an [`ObservedCall`].
#[derive(Debug, Clone)]
pub struct ObservedCallBuilder {
    call: ObservedCall,
}

/// A recorded call with that record ordinal, answered `200`, nothing else known yet.
pub fn observed_call(record_ordinal: u64) -> ObservedCallBuilder {
    ObservedCallBuilder {
        call: ObservedCall {
            record_ordinal,
            response_status: 200,
            ..ObservedCall::default()
        },
    }
}

impl ObservedCallBuilder {
    /// The entity as the state held it before the call.
    pub fn before(mut self, entity: Value) -> Self {
        self.call.entity_before = Some(entity);
        self
    }

    /// The body the call sent.
    pub fn sent(mut self, body: Value) -> Self {
        self.call.request_body = Some(body);
        self
    }

    /// The entities of the written type the state held before the call (a create).
    pub fn held_entities(mut self, entities: Vec<Value>) -> Self {
        self.call.held_entities = entities;
        self
    }

    /// The order the call sent its body's top-level members in.
    pub fn member_order(mut self, names: &[&str]) -> Self {
        self.call.member_order = names.iter().map(|name| (*name).to_owned()).collect();
        self
    }

    /// The response: status and body.
    pub fn response(mut self, status: u16, body: Value) -> Self {
        self.call.response_status = status;
        self.call.response_body = Some(body);
        self
    }

    /// The entity as observed after the call: `entity_after` and an item read showing it.
    pub fn after(mut self, entity: Value) -> Self {
        let ordinal = self.call.record_ordinal + 1 + self.call.reads_after.len() as u64;
        self.call.entity_after = Some(entity.clone());
        self.call.reads_after.push(item_read(ordinal, Some(entity)));
        self
    }

    /// A read after the call.
    pub fn read(mut self, read: ObservedRead) -> Self {
        self.call.reads_after.push(read);
        self
    }

    /// The record's start instant and duration.
    pub fn started(mut self, instant: &str, duration_ms: u64) -> Self {
        self.call.started = Some(instant.to_owned());
        self.call.duration_ms = Some(duration_ms);
        self
    }

    /// A member the host could not explain: its pointer and its value after the call.
    pub fn unexplained(mut self, pointer: &str, value: Value) -> Self {
        self.call.unexplained.insert(pointer.to_owned(), value);
        self
    }

    /// The statuses of the tool's refused calls since its previous successful one.
    pub fn refused_before(mut self, statuses: &[u16]) -> Self {
        self.call.refused_before = statuses.to_vec();
        self
    }

    /// The path parameters, by template index.
    pub fn path_params(mut self, params: &[&str]) -> Self {
        self.call.path_params = params.iter().map(|param| (*param).to_owned()).collect();
        self
    }

    /// The largest integer the written collection held for a field before the call.
    pub fn held_max(mut self, field: &str, value: Value) -> Self {
        self.call.held_max.insert(field.to_owned(), value);
        self
    }

    /// A store counter the host keeps, at its value before the call (answer pointer, value).
    pub fn store_counter(mut self, pointer: &str, value: Value) -> Self {
        self.call.store_counters.insert(pointer.to_owned(), value);
        self
    }

    /// The written entity's position in its collection before the call.
    pub fn position_before(mut self, position: usize) -> Self {
        self.call.position_before = Some(position);
        self
    }

    /// An entity of another type holding the deleted id in `fields`, before the call and as a
    /// read after it showed it (`None`: absent).
    pub fn dependent(
        mut self,
        entity_type: &str,
        fields: &[&str],
        before: Value,
        after: Option<Value>,
    ) -> Self {
        self.call.dependents.push(ObservedDependent {
            entity_type: entity_type.to_owned(),
            fields: fields.iter().map(|field| (*field).to_owned()).collect(),
            before,
            after,
        });
        self
    }

    /// The call.
    pub fn build(self) -> ObservedCall {
        self.call
    }
}

impl From<ObservedCallBuilder> for ObservedCall {
    fn from(builder: ObservedCallBuilder) -> Self {
        builder.call
    }
}

/// A read of one entity after a write (`None`: the read showed it absent), answered `200`.
pub fn item_read(record_ordinal: u64, entity: Option<Value>) -> ObservedRead {
    ObservedRead {
        entity,
        kind: ReadKind::Item,
        record_ordinal,
        status: 200,
        ..ObservedRead::default()
    }
}

/// A whole, unsorted list read after a write showing identities in that order, answered `200`.
pub fn list_read(record_ordinal: u64, order: &[&str]) -> ObservedRead {
    ObservedRead {
        kind: ReadKind::List,
        list_order: Some(order.iter().map(|id| (*id).to_owned()).collect()),
        record_ordinal,
        status: 200,
        whole: true,
        ..ObservedRead::default()
    }
}

/// Builds an [`ApplyRequest`].
#[derive(Debug, Clone)]
pub struct ApplyRequestBuilder<R> {
    request: ApplyRequest<R>,
}

/// An apply request for a learned rule: a served update of `PATCH /items/{id}` on state `ev_test`,
/// nothing else known yet.
pub fn apply_request<R>(rule: R) -> ApplyRequestBuilder<R> {
    ApplyRequestBuilder {
        request: ApplyRequest {
            call: ServedCall {
                state_evidence_id: "ev_test".to_owned(),
                ..ServedCall::default()
            },
            rule,
            schema_version: SCHEMA_VERSION,
            tool: tool_for(Effect::Update),
        },
    }
}

impl<R> ApplyRequestBuilder<R> {
    /// The body the caller sent.
    pub fn body(mut self, body: Value) -> Self {
        self.request.call.body = Some(body);
        self
    }

    /// The served clock.
    pub fn clock(mut self, clock: &str) -> Self {
        self.request.call.clock = Some(clock.to_owned());
        self
    }

    /// The statuses of the tool's served calls refused since its previous served success.
    pub fn refused_before(mut self, statuses: &[u16]) -> Self {
        self.request.call.refused_before = statuses.to_vec();
        self
    }

    /// The entity the call writes, as held before it.
    pub fn entity_before(mut self, entity: Value) -> Self {
        self.request.call.entity_before = Some(entity);
        self
    }

    /// The values the collection holds for a field.
    pub fn held_values(mut self, pointer: &str, values: Vec<Value>) -> Self {
        self.request
            .call
            .held_values
            .insert(pointer.to_owned(), values);
        self
    }

    /// The path parameters, by template index.
    pub fn path_params(mut self, params: &[&str]) -> Self {
        self.request.call.path_params = params.iter().map(|param| (*param).to_owned()).collect();
        self
    }

    /// The state Evidence id.
    pub fn state(mut self, evidence_id: &str) -> Self {
        self.request.call.state_evidence_id = evidence_id.to_owned();
        self
    }

    /// A store-wide counter the host keeps (answer pointer → its value before this write).
    pub fn store_counter(mut self, pointer: &str, value: Value) -> Self {
        self.request
            .call
            .store_counters
            .insert(pointer.to_owned(), value);
        self
    }

    /// How many writes the state served before this one.
    pub fn write_count(mut self, count: u64) -> Self {
        self.request.call.write_count = count;
        self
    }

    /// The tool.
    pub fn tool(mut self, tool: ToolRef) -> Self {
        self.request.tool = tool;
        self
    }

    /// The request.
    pub fn build(self) -> ApplyRequest<R> {
        self.request
    }
}

/// The explained pointers and the rule of a learned outcome; panics on no explanation.
pub fn expect_learned<R: Debug>(outcome: LearnOutcome<R>) -> (Vec<String>, R) {
    match outcome {
        LearnOutcome::Learned { explains, rule, .. } => (explains, rule),
        other => panic!("expected a learned rule, got {other:?}"),
    }
}

/// The reason of a no-explanation outcome; panics on a learned rule.
pub fn expect_no_explanation<R: Debug>(outcome: LearnOutcome<R>) -> String {
    match outcome {
        LearnOutcome::NoExplanation { reason, .. } => reason,
        other => panic!("expected no explanation, got {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builders_fill_what_the_host_would_send() {
        let request = learn_request(Effect::Update)
            .call(
                observed_call(4)
                    .before(json!({"id": 1, "v": 1}))
                    .sent(json!({"t": "x"}))
                    .after(json!({"id": 1, "v": 2}))
                    .started("2026-01-01T00:00:00.000000000Z", 5),
            )
            .options(7u8)
            .build();
        assert_eq!(request.options, 7);
        assert_eq!(request.tool.method, "PATCH");
        let call = &request.calls[0];
        assert_eq!(call.reads_after[0].record_ordinal, 5);
        assert_eq!(call.reads_after[0].kind, ReadKind::Item);
        assert_eq!(call.entity_after, Some(json!({"id": 1, "v": 2})));
        let apply = apply_request(json!({"fields": []}))
            .clock("2026-01-01T00:00:01.000000000Z")
            .write_count(2)
            .build();
        assert_eq!(apply.call.state_evidence_id, "ev_test");
        assert_eq!(apply.call.write_count, 2);
        let (explains, rule) = expect_learned(LearnOutcome::learned(vec!["/v".into()], 1));
        assert_eq!((explains, rule), (vec!["/v".to_owned()], 1));
        assert_eq!(
            expect_no_explanation(LearnOutcome::<()>::no_explanation("none")),
            "none"
        );
    }
}

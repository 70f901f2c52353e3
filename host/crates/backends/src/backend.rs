//! The MCP backend of a state environment: the state catalog and card, and each tool call's
//! [`StateAnswer`] carried as an MCP tool result.

use std::collections::HashSet;
use std::sync::Arc;

use rea_manifest::ToolDefinition;
use rea_serve::{AnswerSource, BoxFuture, ToolAnswer, ToolBackend, ToolDescriptor};
use rea_state::answer::{StateAnswer, ToolError};
use rea_state::catalog::{instructions, state_card};
use rea_state::service::StateService;
use serde_json::{Map, Value};

/// A state answer as an MCP tool result: the answer document as its one text content, `isError`
/// for a tool error, no structured content.
pub fn tool_answer(answer: &StateAnswer) -> ToolAnswer {
    ToolAnswer {
        text: answer.to_json_string(),
        structured: None,
        is_error: answer.is_error(),
        source: match answer {
            StateAnswer::Rendered(_) => AnswerSource::State,
            StateAnswer::Recorded(recorded) if recorded.answer.replay.exact_match => {
                AnswerSource::RecordingExact
            }
            StateAnswer::Recorded(_) => AnswerSource::RecordingApproximate,
            StateAnswer::Error(_) | StateAnswer::NotModelled(_) => AnswerSource::Refused,
        },
    }
}

/// The MCP backend of a state environment.
#[derive(Debug)]
pub struct StateBackend {
    service: Arc<StateService>,
    name: String,
    tools: Vec<ToolDescriptor>,
    card: Value,
    instructions: String,
    /// The tools whose answers may be reused while the live state is unchanged: the read-only
    /// ones no write plan or tree serves ([`StateBackend::answer_generation`]).
    reusable: HashSet<String>,
}

impl StateBackend {
    /// The backend over a shared state service, with the state catalog under a served name.
    pub fn new(service: Arc<StateService>, tools: &[ToolDefinition], name: &str) -> Self {
        let derived = service.derived();
        let reusable = tools
            .iter()
            .filter(|tool| tool.annotations.read_only_hint == Some(true))
            .filter(|tool| derived.write_plan(&tool.name).is_none())
            .filter(|tool| {
                !derived
                    .tree_writes
                    .iter()
                    .any(|writes| writes.tool(&tool.name).is_some())
            })
            .map(|tool| tool.name.clone())
            .collect();
        Self {
            reusable,
            service,
            name: name.to_owned(),
            tools: tools.iter().map(crate::replay::descriptor).collect(),
            card: state_card(name, tools).to_json(),
            instructions: instructions(),
        }
    }

    /// The shared state service.
    pub fn service(&self) -> &Arc<StateService> {
        &self.service
    }

    /// A served tool's answer (`sent`: the order the caller wrote its arguments in, when known),
    /// an unknown tool's error.
    fn answer(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        sent: Option<&[String]>,
    ) -> ToolAnswer {
        let answer = if !self.tools.iter().any(|tool| tool.name == name) {
            StateAnswer::Error(ToolError::from(&rea_manifest::ToolCallError::UnknownTool(
                name.to_owned(),
            )))
        } else if let Some(sent) = sent {
            self.service.answer_sent(name, arguments, sent)
        } else {
            self.service.answer(name, arguments)
        };
        tool_answer(&answer)
    }
}

impl ToolBackend for StateBackend {
    fn server_name(&self) -> &str {
        &self.name
    }

    fn instructions(&self) -> &str {
        &self.instructions
    }

    fn tools(&self) -> &[ToolDescriptor] {
        &self.tools
    }

    fn card(&self) -> &Value {
        &self.card
    }

    fn status(&self) -> rea_serve::status::StatusPage {
        crate::status::state_status(&self.service, &self.tools)
    }

    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, ToolAnswer> {
        Box::pin(std::future::ready(self.answer(name, &arguments, None)))
    }

    /// A call whose argument order is known: answers repeating the call repeat it so where the
    /// build shows the application doing so ([`StateService::answer_sent`]).
    fn call_tool_sent<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
        sent: rea_serve::arguments::SentOrder,
    ) -> BoxFuture<'a, ToolAnswer> {
        Box::pin(std::future::ready(self.answer(
            name,
            &arguments,
            Some(&sent.0),
        )))
    }

    /// A read-only tool no write plan or tree serves changes nothing and answers from the live
    /// state and the recordings alone, so its answers may be reused while nothing took the live
    /// state for writing: the generation is how many times something did (a served write, a
    /// refusal noted, `data/reset`, `data/add`), counted when the write lock is taken, before
    /// any change is visible to a read.
    fn answer_generation(&self, name: &str) -> Option<u64> {
        if !self.reusable.contains(name) {
            return None;
        }
        let (_live, taken) = self.service.read_counted();
        Some(taken)
    }
}

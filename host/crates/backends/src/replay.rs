//! The replay environment behind the server's [`ToolBackend`] boundary: every manifest tool
//! replays its recorded records; the card is the replay card.
//!
//! `environment-serve` (with `--replay-only`, or when the state is unavailable) and the bundle's
//! prediction both serve replay through this one adapter, so what a bundle predicts is what its
//! server answers.

use rea_manifest::{Environment, ToolDefinition};
use rea_serve::{AnswerSource, BoxFuture, ToolAnswer, ToolBackend, ToolDescriptor};
use serde_json::{Map, Value};

/// A tool definition as the server's catalog describes it.
pub fn descriptor(tool: &ToolDefinition) -> ToolDescriptor {
    ToolDescriptor {
        name: tool.name.clone(),
        description: tool.description.clone(),
        input_schema: tool.input_schema.to_json_object(),
        annotations: match serde_json::to_value(tool.annotations) {
            Ok(Value::Object(members)) => Some(members),
            _ => None,
        },
        meta: Some(tool.meta()),
    }
}

/// The replay catalog of an environment under a served name.
#[derive(Debug)]
pub struct ReplayBackend {
    environment: Environment,
    name: String,
    tools: Vec<ToolDescriptor>,
    card: Value,
    instructions: String,
}

impl ReplayBackend {
    /// The replay backend of an environment under a served name.
    pub fn new(environment: Environment, name: &str) -> Self {
        let tools = environment.replay_tools().iter().map(descriptor).collect();
        let card = environment.card(name).to_json();
        let instructions = environment.instructions();
        Self {
            environment,
            name: name.to_owned(),
            tools,
            card,
            instructions,
        }
    }

    /// The replay environment.
    pub fn environment(&self) -> &Environment {
        &self.environment
    }
}

impl ToolBackend for ReplayBackend {
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
        crate::status::replay_status(&self.environment)
    }

    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, ToolAnswer> {
        let answer = match self.environment.answer(name, &arguments) {
            Ok(answer) => ToolAnswer::text(answer.to_json_string()).from_source(
                if answer.replay.exact_match {
                    AnswerSource::RecordingExact
                } else {
                    AnswerSource::RecordingApproximate
                },
            ),
            Err(error) => ToolAnswer::error(error.to_json()),
        };
        Box::pin(std::future::ready(answer))
    }

    /// Replay writes nothing: the same call always gives the same answer
    /// ([`Environment::answer`]), so every answer may be reused, at one generation.
    fn answer_generation(&self, _name: &str) -> Option<u64> {
        Some(0)
    }
}

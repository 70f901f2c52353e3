//! Answering one tool call from the state: a served write tool's call changes the live state
//! ([`crate::writes::serve`]); any other tool's is read from it ([`crate::read`]).

use serde_json::{Map, Value};

use crate::answer::StateAnswer;
use crate::service::StateService;

impl StateService {
    /// Answers a tool call: a read from the state (or its recordings), a served write by
    /// changing the state.
    pub fn answer(&self, tool: &str, arguments: &Map<String, Value>) -> StateAnswer {
        self.answer_with(tool, arguments, true)
    }

    /// [`StateService::answer`]; without `provenance` a state answer's `replay.exact_match` is
    /// `false` instead of replay's verdict, which spares the replay of a call answered from the
    /// state (the write plans' confirmation compares statuses and bodies only).
    pub(crate) fn answer_with(
        &self,
        tool: &str,
        arguments: &Map<String, Value>,
        provenance: bool,
    ) -> StateAnswer {
        if let Some(plan) = self.derived().write_plan(tool)
            && plan.served
        {
            return crate::writes::serve::write_call(self, plan, arguments);
        }
        self.answer_read(tool, arguments, provenance)
    }
}

//! Answering one tool call from the state: a served write tool's call changes the live state
//! ([`crate::writes::serve`]); a withheld write tool's call sending a value its build was refused
//! for as taken answers that refusal, changing nothing; its other calls answer as the pipeline's `[serve]
//! withheld` says (a `not_served` error naming why and what to record, or its recording with no
//! change; hidden, it is no tool of the catalog); any other tool's is read from it
//! ([`crate::read`]).

use serde_json::{Map, Value, json};

use crate::answer::{StateAnswer, StateSource, ToolError, recording_answer};
use crate::rules::WithheldWrites;
use crate::service::StateService;
use crate::writes::model::WritePlan;

impl StateService {
    /// Answers a tool call: a read from the state (or its recordings), a served write by
    /// changing the state.
    pub fn answer(&self, tool: &str, arguments: &Map<String, Value>) -> StateAnswer {
        self.answer_with(tool, (arguments, None), true)
    }

    /// [`StateService::answer`] for a caller that says the order it sent its arguments in
    /// (`sent`: their names, as sent; the object keeps none): an answer repeating the call's
    /// query repeats it in that order where the build shows the application doing so
    /// ([`crate::query_order`]).
    pub fn answer_sent(
        &self,
        tool: &str,
        arguments: &Map<String, Value>,
        sent: &[String],
    ) -> StateAnswer {
        self.answer_with(tool, (arguments, Some(sent)), true)
    }

    /// [`StateService::answer`]; without `provenance` a state answer's `replay.exact_match` is
    /// `false` instead of replay's verdict, which spares the replay of a call answered from the
    /// state (the write plans' confirmation compares statuses and bodies only).
    pub(crate) fn answer_with(
        &self,
        tool: &str,
        (arguments, sent): (&Map<String, Value>, Option<&[String]>),
        provenance: bool,
    ) -> StateAnswer {
        if let Some(answer) = self.answer_tree_write(tool, arguments) {
            return answer;
        }
        if let Some(plan) = self.derived().write_plan(tool) {
            if plan.served {
                return crate::writes::serve::write_call(self, plan, arguments);
            }
            if !matches!(self.rules().withheld(), WithheldWrites::Hide)
                && let Some(refused) =
                    crate::writes::serve::withheld_conflict(self, plan, arguments)
            {
                return refused;
            }
            match self.rules().withheld() {
                WithheldWrites::Refuse => return not_served(plan),
                WithheldWrites::Replay => return self.replay_withheld(plan, tool, arguments),
                WithheldWrites::Hide => {}
            }
        }
        // A query naming a field the listed entities do not hold answers the application's
        // recorded refusal of such a field.
        if let Some(refused) = crate::query_refusals::answer(self, tool, arguments) {
            return refused;
        }
        self.answer_read(tool, (arguments, sent), provenance)
    }

    /// A withheld write's recording (the recorded call its arguments match best), changing
    /// nothing.
    fn replay_withheld(
        &self,
        plan: &WritePlan,
        tool: &str,
        arguments: &Map<String, Value>,
    ) -> StateAnswer {
        match self.replay().answer(tool, arguments) {
            Ok(replayed) => recording_answer(
                replayed,
                StateSource::withheld_write(plan.reason.clone().unwrap_or_default()),
            ),
            Err(error) => ToolError::from(&error).into(),
        }
    }
}

/// The `not_served` error of a withheld write: why it is withheld and what to record next, so an
/// agent knows the action exists and why the environment cannot perform it.
pub fn not_served(plan: &WritePlan) -> StateAnswer {
    let reason = plan.reason.clone().unwrap_or_default();
    let hint = plan.hint.clone().unwrap_or_default();
    StateAnswer::Error(ToolError {
        code: "not_served".to_owned(),
        message: format!(
            "this environment does not perform this write ({reason}): {hint} Nothing was changed."
        ),
        data: Some(json!({
            "tool": plan.tool,
            "effect": plan.effect.name(),
            "reason": reason,
            "hint": hint,
        })),
    })
}

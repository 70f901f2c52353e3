//! Argument-free documents: a document view whose recordings show that its path's arguments
//! change nothing in the answer.
//!
//! A document view holding one document answers only the path its checked read named: another
//! path may name another document. One exception is learned from the build: when the tool's
//! recorded requests name at least two different paths, no query and no body, and every one of
//! them answered the same success (status, media type and body, byte for byte), the recordings
//! show that the path's arguments do not change the answer (a user document that names whoever
//! is authenticated, whatever user the path names). A call naming another path, with no query
//! and no body, then answers the state's live document, as the call naming its own path does
//! (`exact_match` false); otherwise it is refused as before. The answer is the state's, never
//! another request's recording. Learned from the recordings only, never from names.

use rea_manifest::body::ReplayBody;
use rea_manifest::replay::ReplayAnswer;

use crate::call::Call;
use crate::model::DocumentView;
use crate::service::StateService;

/// Whether two recorded answers are the same: status, media type and body, byte for byte (a
/// body the capture did not keep is never the same as another).
fn same_answer(one: &ReplayAnswer, other: &ReplayAnswer) -> bool {
    let same_body = match (&one.body, &other.body) {
        (ReplayBody::Json(one), ReplayBody::Json(other)) => one.get() == other.get(),
        (ReplayBody::Text(one), ReplayBody::Text(other)) => one == other,
        _ => false,
    };
    one.status == other.status && one.content_type == other.content_type && same_body
}

fn success(answer: &ReplayAnswer) -> bool {
    answer
        .status
        .is_some_and(|status| (200..300).contains(&status))
}

impl StateService {
    /// The one line (path and record ordinal) of a document view that answers a call naming
    /// another path, when the tool's recordings show it argument-free (see the module docs);
    /// `None` for a keyed view, a call naming a query or a body, or recordings that differ.
    pub(crate) fn argument_free_line<'d>(
        &self,
        tool: &str,
        document: &'d DocumentView,
        call: &Call,
    ) -> Option<(&'d str, u64)> {
        if document.is_keyed() || !call.query.is_empty() || call.body.is_some() {
            return None;
        }
        let answers = self
            .recorded_lines()
            .plain_paths(tool)?
            .into_iter()
            .map(|ordinal| self.replay().answer_record(tool, ordinal))
            .collect::<Option<Vec<_>>>()?;
        let (last, earlier) = answers.split_last()?;
        (success(last) && earlier.iter().all(|answer| same_answer(answer, last)))
            .then(|| document.lines().next())
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::derive::tests::{Fixture, derive, record};
    use crate::model::ViewDetail;

    fn authenticated() -> serde_json::Value {
        json!({"ok": "you are authenticated as 'admin'"})
    }

    /// A document read on `/api/users/1` before a write (its view's one line) and again after
    /// it on `/api/users/{again}`, answering `first` and then `second`.
    fn read_twice(again: u64, first: serde_json::Value, second: serde_json::Value) -> Fixture {
        let fixture = derive(vec![
            record(0, "GET", "/api/users/1", 200, first),
            record(1, "PUT", "/api/users/2", 201, json!({"ok": "created"})),
            record(2, "GET", &format!("/api/users/{again}"), 200, second),
        ]);
        let (tool, _) = fixture.tool("/api/users/{numeric}");
        assert!(
            matches!(fixture.view(&tool), ViewDetail::Document(document) if !document.is_keyed()),
            "{:?}",
            fixture.view(&tool)
        );
        fixture
    }

    #[test]
    fn a_document_whose_recordings_answer_alike_for_two_paths_answers_a_third() {
        let fixture = read_twice(2, authenticated(), authenticated());
        let (tool, argument) = fixture.tool("/api/users/{numeric}");
        let answer = fixture.call(&tool, json!({ argument.clone(): 99 }));
        assert_eq!(answer["status"], 200, "{answer}");
        assert_eq!(answer["body"], authenticated());
        // The state's document, never another request's recording.
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        assert_eq!(answer["replay"]["exact_match"], false, "{answer}");
        // The document's own path answers it exactly, as before.
        let exact = fixture.call(&tool, json!({ argument: 1 }));
        assert_eq!(exact["state"]["source"], "state", "{exact}");
        assert_eq!(exact["replay"]["exact_match"], true, "{exact}");
    }

    #[test]
    fn answers_that_differ_or_one_path_leave_another_path_refused() {
        // Two paths answering differently: the argument matters.
        let fixture = read_twice(2, json!({"ok": "admin"}), json!({"ok": "bea"}));
        let (tool, argument) = fixture.tool("/api/users/{numeric}");
        let refused = fixture.call(&tool, json!({ argument: 99 }));
        assert_eq!(refused["is_error"], true, "{refused}");
        // The same path twice shows nothing about other paths.
        let fixture = read_twice(1, authenticated(), authenticated());
        let (tool, argument) = fixture.tool("/api/users/{numeric}");
        let refused = fixture.call(&tool, json!({ argument: 99 }));
        assert_eq!(refused["is_error"], true, "{refused}");
    }
}

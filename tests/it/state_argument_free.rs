//! Argument-free documents on a real recording: a document view whose recorded requests name two
//! different paths and answer the same success byte for byte (verdaccio's user document, which
//! names whoever is authenticated whatever user the path names: `/-/user/org.couchdb.user:admin`
//! and `…:bea` both answer admin) answers the state's document to a third path. One recorded
//! application shows such a read: no other corpus application's build answers two different
//! paths of one read tool alike.

use serde_json::Value;

use crate::state_support::{call_with_strings, recorded_answer, serve_corpus_app};

const USER_TOOL: &str = "get_user_by_id";

#[test]
fn verdaccio_user_document_answers_alike_for_a_user_the_build_never_read() {
    let served = serve_corpus_app("verdaccio");
    let recorded: Vec<Value> = served
        .records
        .iter()
        .filter(|record| {
            record.method.as_deref() == Some("GET")
                && record
                    .path
                    .as_deref()
                    .is_some_and(|path| path.starts_with("/-/user/"))
        })
        .map(|record| recorded_answer(record).1)
        .collect();
    // The build read two users' documents and was answered alike.
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert_eq!(recorded[0], recorded[1]);
    let (answer, is_error) = call_with_strings(&served, USER_TOOL, &[("id", "zed")]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 200, "{answer}");
    assert_eq!(answer["body"], recorded[0], "{answer}");
    // The state's document, never another request's recording.
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["replay"]["exact_match"], false, "{answer}");
}

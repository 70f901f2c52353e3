//! Reads of what the capture itself created (`rea_state::created`): a read tool answering from
//! its recordings whose every successful recording showed only entities a write of the capture
//! created answers the state before those writes: an item tool its recorded missing answer for
//! any id, a list tool its recordings less the created entities. Only before a served write of a
//! tool whose recorded calls created one of them (any served write, when no creating write is
//! known).
//!
//! One recorded application shows it: jupyter_server's sessions and kernels (created by
//! `POST /api/sessions` and `POST /api/kernels`, read, deleted, read missing). The other corpus
//! item tools reading created entities (flexget's entries, kinto's records, json-server's posts,
//! pouchdb's documents) also read entities the seed held, so they are item views of their own.

use serde_json::{Map, Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, serve_corpus_app};

const MISSING: &str = "00000000-0000-4000-8000-000000000000";

/// The arguments naming one id of an item tool.
fn item(served: &Served, tool: &str, id: &str) -> Map<String, Value> {
    crate::state_support::id_arguments(served, tool, id)
}

#[test]
fn jupyter_answers_a_missing_session_and_kernel_as_the_build_showed_them() {
    let served = serve_corpus_app("jupyter_server");
    let learned: Vec<&str> = served
        .state()
        .created_reads
        .iter()
        .map(|read| read.tool.as_str())
        .collect();
    for tool in [
        "get_sessions",
        "get_sessions_by_id",
        "get_kernels",
        "get_kernels_by_id",
    ] {
        assert!(learned.contains(&tool), "{tool}: {learned:?}");
    }
    let (answer, is_error) = served.call(
        "get_sessions_by_id",
        item(&served, "get_sessions_by_id", MISSING),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(answer["state"]["view"], "missing", "{answer}");
    assert_eq!(
        answer["body"],
        json!({"message": format!("Session not found: session_id='{MISSING}'"), "reason": null})
    );
    let (answer, _) = served.call(
        "get_kernels_by_id",
        item(&served, "get_kernels_by_id", MISSING),
    );
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(
        answer["body"],
        json!({"message": format!("Kernel does not exist: {MISSING}"), "reason": null})
    );
    // The session the build created did not exist before the build's create either.
    let created = "32ee11d8-88d1-4a67-b8b4-d0ce1c708e27";
    let (answer, _) = served.call(
        "get_sessions_by_id",
        item(&served, "get_sessions_by_id", created),
    );
    assert_eq!(answer["status"], 404, "{answer}");
}

#[test]
fn jupyter_lists_no_session_or_kernel_before_any_write() {
    let served = serve_corpus_app("jupyter_server");
    for tool in ["get_sessions", "get_kernels"] {
        // The build listed one (its create's) before listing none.
        let (answer, is_error) = served.call(tool, Map::new());
        assert!(!is_error, "{answer}");
        assert_eq!(answer["status"], 200, "{answer}");
        assert_eq!(answer["body"], json!([]), "{tool}: {answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
    }
}

#[test]
fn jupyter_answers_the_seed_list_and_missing_session_after_a_served_write_of_files() {
    let served = serve_corpus_app("jupyter_server");
    let creators: Vec<(&str, &[u64])> = served
        .state()
        .created_reads
        .iter()
        .map(|read| (read.tool.as_str(), read.creators.as_slice()))
        .collect();
    // The build's session create (record 50) made the session and its nested kernel.
    for (tool, written) in &creators {
        assert!(written.contains(&50), "{tool}: {creators:?}");
    }
    // A file saved by PUT, which the state serves.
    let (tool, mut arguments) = call_for(
        &served,
        "PUT",
        "/api/contents/notes/plan.md",
        Some("/api/contents/{prefix-variance}/{sibling-variance}"),
    );
    arguments.insert(
        "body".to_owned(),
        json!({"type": "file", "format": "text", "content": "# Plan\n"}),
    );
    let (answer, is_error) = served.call(&tool, arguments);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 201, "{answer}");
    // No write the state serves created a session or a kernel in the build (their creates are
    // withheld): the seed list and the missing answer still stand.
    let (answer, _) = served.call("get_sessions", Map::new());
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"], json!([]), "{answer}");
    let (answer, _) = served.call(
        "get_kernels_by_id",
        item(&served, "get_kernels_by_id", MISSING),
    );
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(answer["state"]["view"], "missing", "{answer}");
}

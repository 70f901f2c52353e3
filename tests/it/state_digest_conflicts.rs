//! Two answers a folder tree's documents give without a modelled write, both learned from what the
//! build's answers show:
//!
//! - A digest query: the build read `README.md?hash=1` (the root-level document tool), whose
//!   answer holds `hash`, the SHA-256 of its `content`, and `hash_algorithm: "sha256"`. The
//!   two-level document tool took `hash` from the tree's query family and never saw it answered;
//!   it answers `notes/todo.md?hash=1` with the file the state holds and the digest of its text.
//!   A value the build never sent (`hash=0`) still answers as before.
//! - A rename onto a taken path: the build's `PATCH notes/standup.md {"path": "notes/todo.md"}`
//!   answered `409 File already exists`. The rename tool (an update copying its entity under a
//!   new identity, served since the copy keeps what its answer leaves `null` and takes the last
//!   part of the sent path as its name: see `state_rename_moves`) answers a call renaming onto a
//!   path the folder holds with that refusal, its recorded path renamed to the sent one, and
//!   changes nothing.
//!
//! One recorded application shows both: Jupyter Server.

use std::sync::Arc;

use rea_backends::fetch::FetchOptions;
use rea_state::rules::{RuleSet, WithheldWrites};
use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, capture_file, serve_corpus_app, serve_evidence, state_rules};

const FILE_TEMPLATE: &str = "/api/contents/{prefix-variance}/{sibling-variance}";

fn call(served: &Served, method: &str, target: &str, body: Option<Value>) -> (Value, bool) {
    let (tool, mut arguments) = call_for(served, method, target, Some(FILE_TEMPLATE));
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    served.call(&tool, arguments)
}

#[test]
fn jupyter_a_hash_query_answers_the_digest_of_the_held_text() {
    let served = serve_corpus_app("jupyter_server");
    let (plain, is_error) = call(&served, "GET", "/api/contents/notes/todo.md", None);
    assert!(!is_error, "{plain}");
    let text = plain["body"]["content"].as_str().expect("the file's text");
    assert_eq!(plain["body"]["hash"], Value::Null, "{plain}");

    let (hashed, is_error) = call(&served, "GET", "/api/contents/notes/todo.md?hash=1", None);
    assert!(!is_error, "{hashed}");
    assert_eq!(hashed["status"], 200, "{hashed}");
    assert_eq!(hashed["body"]["content"], text, "{hashed}");
    assert_eq!(
        hashed["body"]["hash"],
        rea_evidence::sha256_hex(text.as_bytes()),
        "{hashed}"
    );
    assert_eq!(hashed["body"]["hash_algorithm"], "sha256", "{hashed}");

    // A value no read was made with is not the digest query.
    let (other, _) = call(&served, "GET", "/api/contents/notes/todo.md?hash=0", None);
    assert_ne!(other["body"]["hash_algorithm"], "sha256", "{other}");
}

#[test]
fn jupyter_a_rename_onto_a_taken_path_answers_the_recorded_conflict() {
    let rules = Arc::new(RuleSet::clone(&state_rules()).with_withheld(WithheldWrites::Refuse));
    let build = rea_tests::workspace_root().join("tests/corpus/apps/jupyter_server/build.har");
    let served = serve_evidence(capture_file(&build), rules, FetchOptions::default());
    let (tool, _) = call_for(
        &served,
        "PATCH",
        "/api/contents/notes/ideas.txt",
        Some(FILE_TEMPLATE),
    );
    let plan = served.state().write_plan(&tool).expect("the rename's plan");
    assert!(plan.served, "{plan:?}");
    assert!(plan.copies, "{plan:?}");
    assert!(
        plan.conflicts
            .iter()
            .any(|conflict| conflict.member == "path"),
        "{plan:?}"
    );

    let (refused, is_error) = call(
        &served,
        "PATCH",
        "/api/contents/data/logo.png",
        Some(json!({"path": "data/sales.csv"})),
    );
    assert!(!is_error, "{refused}");
    assert_eq!(refused["status"], 409, "{refused}");
    assert_eq!(
        refused["body"]["message"], "File already exists: data/sales.csv",
        "{refused}"
    );
    // Nothing changed: the file still reads at its old path.
    let (kept, _) = call(&served, "GET", "/api/contents/data/logo.png", None);
    assert_eq!(kept["status"], 200, "{kept}");

    // A free path is no conflict: the rename moves the file.
    let (free, is_error) = call(
        &served,
        "PATCH",
        "/api/contents/data/logo.png",
        Some(json!({"path": "data/later.png"})),
    );
    assert!(!is_error, "{free}");
    assert_eq!(free["status"], 200, "{free}");
    assert_eq!(free["body"]["name"], "later.png", "{free}");
}

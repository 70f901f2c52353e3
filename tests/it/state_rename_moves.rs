//! A rename that re-keys its document: Jupyter Server's `PATCH /api/contents/{dir}/{file}` with a
//! body `{"path": …}` answers the document under its new path with a content-less model (its
//! `content` and `format` `null`), and the build's later reads of the new path (31, 28) show the
//! content the document held. The copy keeps each member the rename's answer leaves `null`, so the
//! rename is served: a rename onto a held name answers the 409 the build showed (entry 35), and a
//! rename in a folder moves the file (the folder it left listing its other rows). One recorded application shows a re-keying write answered
//! as a summary (optuna-dashboard's copying rename answers its study whole, see
//! `state_copy_writes`).

use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, corpus_write_plans, serve_corpus_app};

const RENAME_TOOL: &str = "patch_contents_by_content_id_and_name";
const FILE_TEMPLATE: &str = "/api/contents/{prefix-variance}/{sibling-variance}";

#[test]
fn the_rename_is_learned_as_a_served_copy() {
    let plans = corpus_write_plans("jupyter_server");
    let rename = plans
        .iter()
        .find(|plan| plan["tool"] == RENAME_TOOL)
        .unwrap_or_else(|| panic!("no plan for {RENAME_TOOL}: {plans:#?}"));
    assert_eq!(rename["served"], true, "{rename:#}");
    assert_eq!(rename["copies"], true, "{rename:#}");
    // The new name is the last part of the sent path (not a template fitted to one call).
    let composed = rename["rules"]
        .as_array()
        .and_then(|rules| rules.iter().find(|rule| rule["stage"] == "composed"))
        .unwrap_or_else(|| panic!("no composed rule: {rename:#}"));
    assert_eq!(
        composed["rule"]["fields"]["/name"],
        json!([{"source": "sent-last:path"}]),
        "{rename:#}"
    );
}

#[test]
fn a_rename_onto_a_held_file_answers_the_recorded_conflict() {
    let served = serve_corpus_app("jupyter_server");
    let (tool, mut arguments) = call_for(&served, "PATCH", "/api/contents/notes/standup.md", None);
    assert_eq!(tool, RENAME_TOOL);
    arguments.insert("body".to_owned(), json!({"path": "notes/todo.md"}));
    let (answer, _) = served.call(&tool, arguments);
    assert_eq!(answer["status"], 409, "{answer}");
}

/// The answer of a read of `target` by the file tool.
fn read_file(served: &Served, target: &str) -> Value {
    let (tool, arguments) = call_for(served, "GET", target, Some(FILE_TEMPLATE));
    served.call(&tool, arguments).0
}

/// Renames `from` (a file two levels down) to the sent `path`.
fn rename(served: &Served, from: &str, path: &str) -> (Value, bool) {
    let (tool, mut arguments) = call_for(served, "PATCH", from, None);
    assert_eq!(tool, RENAME_TOOL);
    arguments.insert("body".to_owned(), json!({ "path": path }));
    served.call(&tool, arguments)
}

#[test]
fn a_rename_in_its_folder_moves_the_file() {
    let served = serve_corpus_app("jupyter_server");
    let held = read_file(&served, "/api/contents/notes/todo.md");
    let (answer, is_error) = rename(&served, "/api/contents/notes/todo.md", "notes/done.md");
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 200, "{answer}");
    assert_eq!(answer["body"]["name"], "done.md", "{answer}");
    assert_eq!(answer["body"]["path"], "notes/done.md", "{answer}");
    // The answer is the content-less model the recorded rename answered.
    assert_eq!(answer["body"]["content"], Value::Null, "{answer}");

    let old = read_file(&served, "/api/contents/notes/todo.md");
    assert_eq!(old["status"], 404, "{old}");
    let new = read_file(&served, "/api/contents/notes/done.md");
    assert_eq!(new["status"], 200, "{new}");
    assert_eq!(new["body"]["name"], "done.md", "{new}");
    // The document keeps what it held: its content and format.
    assert_eq!(new["body"]["content"], held["body"]["content"], "{new}");
    assert_eq!(new["body"]["format"], held["body"]["format"], "{new}");
}

#[test]
fn a_rename_into_another_folder_moves_the_file_there() {
    let served = serve_corpus_app("jupyter_server");
    let (answer, is_error) = rename(&served, "/api/contents/notes/todo.md", "data/todo.md");
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 200, "{answer}");
    assert_eq!(
        answer["state"]["collection"], "/api/contents/data",
        "{answer}"
    );
    let old = read_file(&served, "/api/contents/notes/todo.md");
    assert_eq!(old["status"], 404, "{old}");
    let new = read_file(&served, "/api/contents/data/todo.md");
    assert_eq!(new["status"], 200, "{new}");
    assert_eq!(new["body"]["path"], "data/todo.md", "{new}");
    // Both folders' listings changed: neither answers its stale listing. The folder the file
    // left lists its other rows (composed, see `state_folder_listings`); the one it entered was
    // never listed by the build, so it is refused.
    let listing = |folder: &str| {
        let (tool, arguments) = call_for(&served, "GET", folder, None);
        served.call(&tool, arguments)
    };
    let (notes, is_error) = listing("/api/contents/notes");
    assert!(!is_error, "{notes}");
    let names = crate::state_listed_rows::listed_names(&notes);
    assert_eq!(
        names,
        [&json!("ideas.txt"), &json!("meeting-2026-11-30.md")],
        "{notes}"
    );
    let (data, is_error) = listing("/api/contents/data");
    assert!(is_error, "{data}");
    assert!(data.to_string().contains("folder-unlisted"), "{data}");
}

#[test]
fn a_rename_into_a_folder_a_request_would_encode_is_refused() {
    let served = serve_corpus_app("jupyter_server");
    let (answer, is_error) = rename(&served, "/api/contents/notes/todo.md", "My Notes/todo.md");
    assert!(is_error, "{answer}");
    let held = read_file(&served, "/api/contents/notes/todo.md");
    assert_eq!(held["status"], 200, "{held}");
}

//! A served write of a document inside a folder the state holds as an item listing its children by
//! path: the confirming replay charges the folder's changed listing (the new child's entry, the
//! folder's stamps) to no write, so the document write is served, and after such a write a read
//! of that folder answers its listing composed from the live state or, when the new child's place
//! among its siblings is not shown (`folder-child-place`, see `state_folder_listings`), not
//! modelled, never its stale listing, while the files and folders elsewhere still answer from the
//! state. Jupyter Server's file `PUT
//! /api/contents/{dir}/{file}` (build calls 15, 18, 38 under `notes`, whose listing read 17 shows
//! the created `standup.md`). Only this recorded application shows the rule: etcd's v2 key writes
//! are folder-tree writes instead (see `state_tree_writes`).

use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{corpus_write_plans, serve_corpus_app};

const FILE_TEMPLATE: &str = "/api/contents/{prefix-variance}/{sibling-variance}";

fn plan<'a>(plans: &'a [Value], tool: &str) -> &'a Value {
    plans
        .iter()
        .find(|plan| plan["tool"] == tool)
        .unwrap_or_else(|| panic!("no plan for {tool}: {plans:#?}"))
}

#[test]
fn a_file_put_in_a_listed_folder_is_served_and_confirmed_by_its_reads() {
    let plans = corpus_write_plans("jupyter_server");
    let put = plan(&plans, "put_contents_by_content_id_and_name");
    // Before, read 17 (the notes listing now holding standup.md) withheld it as a side effect.
    assert_eq!(put["served"], true, "{put:#}");
    assert_eq!(put["reason"], Value::Null, "{put:#}");
    assert_eq!(put["confirmed_by"], json!([16, 19, 39]), "{put:#}");
}

#[test]
fn the_folder_a_new_child_was_written_in_answers_not_modelled_and_the_rest_answers_from_the_state()
{
    let served = serve_corpus_app("jupyter_server");
    let folders = served
        .state()
        .types
        .iter()
        .filter(|known| known.folder_listings_after_writes)
        .map(|known| known.collection_template.as_str())
        .collect::<Vec<_>>();
    assert_eq!(folders, ["/api/contents"]);
    let read = |target: &str, template: Option<&str>| {
        let (tool, arguments) = call_for(&served, "GET", target, template);
        served.call(&tool, arguments)
    };
    // Before any write the notes folder answers its listing from the state.
    let (notes, is_error) = read("/api/contents/notes", None);
    assert!(!is_error, "{notes}");
    assert_eq!(notes["status"], 200, "{notes}");

    let (tool, mut arguments) = call_for(
        &served,
        "PUT",
        "/api/contents/notes/plan.md",
        Some(FILE_TEMPLATE),
    );
    arguments.insert(
        "body".to_owned(),
        json!({"type": "file", "format": "text", "content": "# Plan\n"}),
    );
    let (written, is_error) = served.call(&tool, arguments);
    assert!(!is_error, "{written}");
    assert_eq!(written["status"], 201, "{written}");
    assert_eq!(written["body"]["path"], "notes/plan.md", "{written}");
    assert_eq!(written["body"]["size"], 7, "{written}");

    let (file, is_error) = read("/api/contents/notes/plan.md", Some(FILE_TEMPLATE));
    assert!(!is_error, "{file}");
    assert_eq!(file["status"], 200, "{file}");
    assert_eq!(file["body"]["content"], "# Plan\n", "{file}");

    // The folder written in: where its new child sits among the others is not shown.
    let (notes, is_error) = read("/api/contents/notes", None);
    assert!(is_error, "{notes}");
    assert!(notes.to_string().contains("folder-child-place"), "{notes}");
    // A file beside the folder, and another folder, still answer from the state.
    for target in ["/api/contents/analysis.ipynb", "/api/contents/reports"] {
        let (answer, is_error) = read(target, None);
        assert!(!is_error, "{target}: {answer}");
        assert_eq!(answer["status"], 200, "{target}: {answer}");
    }
}

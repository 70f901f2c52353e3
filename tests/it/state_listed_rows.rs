//! A served delete or overwrite of a document the state holds only as a row of its folder's
//! listing: Jupyter Server's `notes/ideas.txt`, which the build's listing of `notes` shows (read
//! 5) but no read of its own, is overwritten (`200`, its mimetype kept from the row: not a create,
//! which no held `.txt` file would explain) or
//! deleted (`204`) like a file an item read showed, and after a delete the state forgets the row:
//! a second delete answers the missing file's `404`, the file's read answers it too, and the
//! folder's listing is composed without it (never the stale row; see `state_folder_listings`). The row speaks again after
//! `data/reset`, never for a loaded state, and never for a path no listing shows. Only this
//! recorded application shows the rule: etcd's v2 key deletes have no state target (its keys are
//! held only as folder entries, no type), so they stay withheld.

use rea_state::model::Entity;
use serde_json::{Map, Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::plane_calls::run;
use crate::state_support::{Served, serve_corpus_app};

const FILE_TEMPLATE: &str = "/api/contents/{prefix-variance}/{sibling-variance}";

fn call(served: &Served, method: &str, target: &str, template: Option<&str>) -> (Value, bool) {
    let (tool, arguments): (String, Map<String, Value>) =
        call_for(served, method, target, template);
    served.call(&tool, arguments)
}

/// The entity the derived state holds in a collection under an id.
fn held<'s>(served: &'s Served, collection: &str, id: &str) -> Option<&'s Entity> {
    served
        .state()
        .entities
        .iter()
        .find(|entity| entity.collection == collection && entity.id == id)
        .map(|entity| &**entity)
}

/// The plain read of `notes/ideas.txt` (never a tool error: a file or the missing file's 404).
fn read_ideas(served: &Served) -> Value {
    let (file, is_error) = call(
        served,
        "GET",
        "/api/contents/notes/ideas.txt",
        Some(FILE_TEMPLATE),
    );
    assert!(!is_error, "{file}");
    file
}

fn delete(served: &Served, target: &str) -> Value {
    let (answer, is_error) = call(served, "DELETE", target, Some(FILE_TEMPLATE));
    assert!(!is_error, "{target}: {answer}");
    answer
}

#[test]
fn a_file_held_only_as_a_listing_row_is_deleted_and_forgotten() {
    let served = serve_corpus_app("jupyter_server");
    // The state holds no entity for the file: only the notes listing's row shows it.
    let held = held(&served, "/api/contents/notes", "ideas.txt");
    assert!(
        held.is_none(),
        "the build read ideas.txt itself: the case is gone"
    );

    let deleted = delete(&served, "/api/contents/notes/ideas.txt");
    assert_eq!(deleted["status"], 204, "{deleted}");
    // contract: WRITE-054
    let again = delete(&served, "/api/contents/notes/ideas.txt");
    assert_eq!(again["status"], 404, "{again}");
    assert_eq!(again["state"]["view"], "missing", "{again}");

    let file = read_ideas(&served);
    assert_eq!(file["status"], 404, "{file}");
    // The listing the row came from no longer shows it: composed, not the stale row.
    let (notes, is_error) = call(&served, "GET", "/api/contents/notes", None);
    assert!(!is_error, "{notes}");
    let names = listed_names(&notes);
    assert_eq!(
        names,
        [&json!("todo.md"), &json!("meeting-2026-11-30.md")],
        "{notes}"
    );

    // A reset restores the derived state, whose row speaks again.
    run(&served, "data/reset", None).expect("data/reset");
    let deleted = delete(&served, "/api/contents/notes/ideas.txt");
    assert_eq!(deleted["status"], 204, "{deleted}");
}

#[test]
fn a_path_no_listing_shows_and_a_loaded_state_answer_the_missing_file() {
    let served = serve_corpus_app("jupyter_server");
    let nothing = delete(&served, "/api/contents/notes/nothing.txt");
    assert_eq!(nothing["status"], 404, "{nothing}");

    // A loaded state is not the one the build's listings showed, even when it holds the same.
    let got = run(&served, "data/get", None).expect("data/get");
    let document = got["parts"][0]["data"].clone();
    let params = serde_json::json!({"parts": [{"kind": "data", "data": document}]});
    run(&served, "data/add", Some(params)).expect("data/add");
    let loaded = delete(&served, "/api/contents/notes/ideas.txt");
    assert_eq!(loaded["status"], 404, "{loaded}");
    assert_eq!(loaded["state"]["view"], "missing", "{loaded}");
}

#[test]
fn a_file_held_only_as_a_listing_row_is_overwritten_not_created() {
    let served = serve_corpus_app("jupyter_server");
    let row = held(&served, "/api/contents", "notes")
        .and_then(|notes| {
            let rows = serde_json::to_value(&notes.fields).expect("fields");
            rows["content"]
                .as_array()?
                .iter()
                .find(|row| row["name"] == "ideas.txt")
                .cloned()
        })
        .expect("the notes listing shows ideas.txt");
    let (tool, mut arguments) = call_for(
        &served,
        "PUT",
        "/api/contents/notes/ideas.txt",
        Some(FILE_TEMPLATE),
    );
    arguments.insert(
        "body".to_owned(),
        json!({"type": "file", "format": "text", "content": "new ideas\n"}),
    );
    let (written, is_error) = served.call(&tool, arguments);
    assert!(!is_error, "{written}");
    // A save of an existing file (the build's calls 18 and 38), not a create (call 15's 201,
    // whose mimetype no held `.txt` file explains): what the save does not set is the row's.
    assert_eq!(written["status"], 200, "{written}");
    assert_eq!(written["state"]["view"], "update", "{written}");
    assert_eq!(written["body"]["mimetype"], row["mimetype"], "{written}");
    assert_eq!(written["body"]["path"], "notes/ideas.txt", "{written}");
    assert_eq!(written["body"]["size"], 10, "{written}");

    let file = read_ideas(&served);
    assert_eq!(file["status"], 200, "{file}");
    assert_eq!(file["body"]["content"], "new ideas\n", "{file}");
    assert_eq!(file["body"]["mimetype"], row["mimetype"], "{file}");
    // The file is held now: deleting it removes the entity, and then it is missing.
    assert_eq!(
        delete(&served, "/api/contents/notes/ideas.txt")["status"],
        204
    );
    assert_eq!(
        delete(&served, "/api/contents/notes/ideas.txt")["status"],
        404
    );
}

/// The names a contents listing's answer lists, in its order.
pub(crate) fn listed_names(listing: &Value) -> Vec<&Value> {
    listing["body"]["content"]
        .as_array()
        .expect("a listing")
        .iter()
        .map(|entry| &entry["name"])
        .collect()
}

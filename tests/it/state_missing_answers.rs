//! The application's answer for an entity it does not hold, learned from the build's recorded
//! error exchanges: an item read naming an id the state does not hold answers the item tool's
//! recorded missing answer (`state.view: "missing"`) with the status and body the build showed,
//! never another id's recording. On two recorded applications: pouchdb-server answers `404` for a
//! deleted document, and directus answers `403` for an item that does not exist (the build read a
//! task after its recorded delete), a client error that counts as the missing answer only because
//! the build showed it for a path its delete removed. The same answer read back after a recorded
//! delete shows the deleted entity gone, so the delete is confirmed and served: directus (`403`)
//! and json-server (`404`).

use rea_state::model::ViewDetail;
use serde_json::{Map, Value};

use crate::state_support::{Served, arguments_of, recorded_answer, serve_corpus_app};

/// Calls an item tool for an id the state does not hold, with the arguments of its recorded
/// missing answer and the item's id replaced by `unheld`; the answer and the recorded status and
/// body.
fn call_unheld(served: &Served, tool: &str, unheld: &str) -> (Value, (Option<u16>, Value)) {
    let ViewDetail::Item(item) = crate::state_support::view_detail(served, tool) else {
        panic!("{tool} is an item view")
    };
    let ordinal = item.missing_ordinal.expect("a recorded missing answer");
    let record = served
        .records
        .iter()
        .find(|record| record.ordinal == ordinal)
        .expect("the missing record");
    let definition = crate::state_support::manifest_tool(served, tool);
    let last = definition
        .path_parameters
        .last()
        .expect("an item parameter")
        .name
        .clone();
    let mut arguments: Map<String, Value> = arguments_of(&served.replay, tool, record);
    arguments.insert(last, Value::String(unheld.to_owned()));
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{tool} {unheld}: {answer}");
    (answer, recorded_answer(record))
}

fn assert_missing(app: &str, tool: &str, unheld: &str, status: u16) {
    let served = serve_corpus_app(app);
    let (answer, (recorded_status, recorded_body)) = call_unheld(&served, tool, unheld);
    assert_eq!(recorded_status, Some(status), "{app}: the build's answer");
    assert_eq!(answer["status"], status, "{app} {unheld}: {answer}");
    assert_eq!(
        answer["state"]["view"], "missing",
        "{app} {unheld}: {answer}"
    );
    assert_eq!(answer["body"], recorded_body, "{app} {unheld}: {answer}");
}

#[test]
fn a_deleted_documents_404_answers_a_document_never_held() {
    assert_missing(
        "pouchdb-server",
        "get_root_by_segment_0_and_id",
        "book:nowhere",
        404,
    );
}

#[test]
fn a_403_read_after_a_recorded_delete_answers_an_item_never_held() {
    assert_missing("directus", "get_items_tasks_by_id", "999", 403);
}

/// A delete whose build read the deleted path back with the item view's missing answer is served,
/// and an item read after a served delete answers that missing answer.
fn assert_delete_served(app: &str, delete: &str, read: &str, id: &str, status: u16) {
    let served = serve_corpus_app(app);
    let plan = served
        .state()
        .write_plan(delete)
        .unwrap_or_else(|| panic!("{app}: a plan for {delete}"));
    assert!(plan.served, "{app} {delete}: {:?}", plan.reason);
    let arguments = |id: &str| {
        let mut arguments = Map::new();
        arguments.insert("id".to_owned(), Value::String(id.to_owned()));
        arguments
    };
    let (held, _) = served.call(read, arguments(id));
    assert_eq!(held["status"], 200, "{app} {id} before: {held}");
    let (deleted, is_error) = served.call(delete, arguments(id));
    assert!(!is_error, "{app} {delete} {id}: {deleted}");
    let (gone, _) = served.call(read, arguments(id));
    assert_eq!(gone["status"], status, "{app} {id} after: {gone}");
    assert_eq!(gone["state"]["view"], "missing", "{app} {id} after: {gone}");
}

#[test]
fn a_delete_read_back_with_the_missing_403_is_served() {
    assert_delete_served(
        "directus",
        "delete_items_tasks_by_id",
        "get_items_tasks_by_id",
        "2",
        403,
    );
}

#[test]
fn a_delete_read_back_with_the_missing_404_is_served() {
    assert_delete_served(
        "json-server",
        "delete_posts_by_id",
        "get_posts_by_id",
        "2",
        404,
    );
}

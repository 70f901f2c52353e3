//! A served write answering its recorded answer as is (a message, no written entity in it) names
//! the call's path values where the recorded answer spelled the recorded request's inside a
//! string, as a missing-entity answer does. On flexget (one app: its deletes answer
//! `"successfully removed series 4 from DB"`), a delete of series 3 answers that it removed
//! series 3, the status and the `status_code` number unchanged, and a delete of the id the
//! build deleted answers the recording unchanged.

use serde_json::{Map, Value, json};

use crate::state_support::serve_corpus_app;

fn object(value: Value) -> Map<String, Value> {
    let Value::Object(map) = value else {
        panic!("an object")
    };
    map
}

#[test]
fn a_recorded_delete_message_names_the_deleted_id_of_the_call() {
    let served = serve_corpus_app("flexget");
    let tool = "delete_series_by_sery_id";
    let plan = served.state().write_plan(tool).expect("the delete's plan");
    assert!(plan.served, "{:?}", plan.reason);
    let (answer, is_error) = served.call(tool, object(json!({"sery_id": "3"})));
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 200, "{answer}");
    assert_eq!(
        answer["body"],
        json!({
            "message": "successfully removed series 3 from DB",
            "status": "success",
            "status_code": 200
        }),
        "{answer}"
    );
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let (gone, _) = served.call("get_series_by_sery_id", object(json!({"sery_id": "3"})));
    assert_eq!(gone["status"], 404, "{gone}");
}

#[test]
fn a_delete_of_the_recorded_id_answers_the_recording_unchanged() {
    let served = serve_corpus_app("flexget");
    let tool = "delete_entry_list_entries_by_entry_list_id_and_entry_id";
    // The entry the build deleted (10 of list 3) is not held before the build's writes; entry 2 of
    // list 1 is, and its delete names entry 2.
    let (answer, is_error) =
        served.call(tool, object(json!({"entry_list_id": "1", "entry_id": "2"})));
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer["body"]["message"], "successfully deleted entry 2",
        "{answer}"
    );
    let record = served
        .records
        .iter()
        .find(|record| {
            record.method.as_deref() == Some("DELETE")
                && record.path.as_deref() == Some("/api/series/4/")
        })
        .expect("the build's series delete");
    let text = String::from_utf8(record.response.body.bytes().unwrap().into_owned()).unwrap();
    assert!(
        text.contains("successfully removed series 4 from DB"),
        "{text}"
    );
}

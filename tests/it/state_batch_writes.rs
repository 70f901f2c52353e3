//! Batch writes (`rea_state::writes::batch`): a write whose recorded bodies list sub-requests
//! (method, path, body) of writes the state serves, and whose answers list each sub-request's
//! answer wrapped in one member, is served by applying each sub-request as the write it names
//! and answering their answers wrapped as recorded. Learned from parse-server's `/batch` (two
//! creates and an update, confirmed by the reads of the created and updated tasks after it); one
//! recorded application shows a batch body (no other corpus app sends one).

use serde_json::{Map, Value, json};

use crate::state_member_operators::{arguments, item};
use crate::state_support::{Served, corpus_write_plans, plan_of, serve_corpus_app};

const BATCH: &str = "post_parse_batch";
const TASK: &str = "get_parse_classes_task_by_object_id";
const PROJECT: &str = "get_parse_classes_project_by_object_id";
const MEMBER: &str = "get_parse_classes_member_by_object_id";
const MEMBERS: &str = "get_parse_classes_member";

fn batch(served: &Served, requests: Value) -> (Value, bool) {
    let mut arguments = Map::new();
    arguments.insert("body".to_owned(), json!({"requests": requests}));
    served.call(BATCH, arguments)
}

/// How many members the Member list answers from the state.
fn member_count(served: &Served) -> usize {
    let (answer, is_error) = served.call(MEMBERS, Map::new());
    assert!(!is_error, "{answer}");
    answer["body"]["results"].as_array().expect("results").len()
}

#[test]
fn parse_batch_is_learned_as_sub_requests_of_served_writes() {
    let plans = corpus_write_plans("parse-server");
    let plan = plan_of(&plans, BATCH);
    assert_eq!(plan["served"], true, "{plan:#}");
    let model = &plan["batch"];
    assert_eq!(
        (
            &model["requests"],
            &model["method"],
            &model["path"],
            &model["body"],
            &model["wrapper"]
        ),
        (
            &json!("requests"),
            &json!("method"),
            &json!("path"),
            &json!("body"),
            &json!("success")
        ),
        "{plan:#}"
    );
}

#[test]
fn parse_a_served_batch_applies_each_sub_request_and_answers_them_wrapped() {
    let served = serve_corpus_app("parse-server");
    let members = member_count(&served);
    assert_eq!(item(&served, PROJECT, "prjCobalt3")["archived"], true);
    let (answer, is_error) = batch(
        &served,
        json!([
            {"method": "POST", "path": "/parse/classes/Member",
             "body": {"name": "Gus Roy", "email": "gus@example.test", "role": "dev", "active": false}},
            {"method": "PUT", "path": "/parse/classes/Project/prjCobalt3", "body": {"archived": false}},
            {"method": "DELETE", "path": "/parse/classes/Task/tskCbt0007"}
        ]),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 200, "{answer}");
    let answers = answer["body"].as_array().expect("a list of answers");
    assert_eq!(answers.len(), 3, "{answer}");
    let created = &answers[0]["success"];
    let keys: Vec<&String> = created.as_object().expect("created").keys().collect();
    assert_eq!(keys, ["createdAt", "objectId"], "{answer}");
    let keys: Vec<&String> = answers[1]["success"]
        .as_object()
        .expect("updated")
        .keys()
        .collect();
    assert_eq!(keys, ["updatedAt"], "{answer}");
    assert_eq!(answers[2], json!({"success": {}}), "{answer}");
    // Each sub-request changed the state as its own write would.
    let id = created["objectId"].as_str().expect("the new id");
    assert_eq!(item(&served, MEMBER, id)["name"], "Gus Roy");
    assert_eq!(member_count(&served), members + 1);
    assert_eq!(item(&served, PROJECT, "prjCobalt3")["archived"], false);
    let (gone, _) = served.call(TASK, arguments("tskCbt0007", None));
    assert_eq!(gone["status"], 404, "{gone}");
}

#[test]
fn parse_a_batch_with_a_sub_request_not_served_or_refused_changes_nothing() {
    let served = serve_corpus_app("parse-server");
    let members = member_count(&served);
    let create = json!({"method": "POST", "path": "/parse/classes/Member",
        "body": {"name": "Ida", "email": "ida@example.test", "role": "dev", "active": true}});
    for requests in [
        // A path no write tool takes.
        json!([create.clone(), {"method": "PUT", "path": "/parse/nowhere/x", "body": {}}]),
        // A member a sub-request does not take.
        json!([create.clone(), {"method": "DELETE", "path": "/parse/classes/Task/tskAtl0001", "why": 1}]),
        // A sub-request its write refuses, after one that applied: the batch is undone.
        json!([create.clone(), {"method": "PUT", "path": "/parse/classes/Task/tskAtl0001",
            "body": {"unknown_member": 1}}]),
        // No sub-request at all.
        json!([]),
    ] {
        let (answer, is_error) = batch(&served, requests.clone());
        assert!(is_error, "{requests} was applied: {answer}");
        assert!(
            answer.to_string().contains("sub-request") || requests == json!([]),
            "the refusal names the sub-request: {answer}"
        );
        assert_eq!(
            member_count(&served),
            members,
            "{requests} changed the members"
        );
    }
    assert_eq!(
        item(&served, TASK, "tskAtl0001")["title"],
        "Draft the roadmap"
    );
}

#[test]
fn parse_a_write_waits_while_a_batch_holds_the_write_gate() {
    let served = serve_corpus_app("parse-server");
    let members = member_count(&served);
    let create = json!([{"method": "POST", "path": "/parse/classes/Member",
        "body": {"name": "Ida Park", "email": "ida@example.test", "role": "dev", "active": true}}]);
    let gate = served.backend.service().batch_writes();
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| batch(&served, create));
        std::thread::sleep(std::time::Duration::from_millis(300));
        // Held off for as long as the gate is held, however long that is.
        assert!(
            !writer.is_finished(),
            "a write ran while a batch held the gate"
        );
        drop(gate);
        let (answer, is_error) = writer.join().expect("the writer");
        assert!(!is_error, "{answer}");
    });
    assert_eq!(member_count(&served), members + 1);
}

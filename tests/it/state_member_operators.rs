//! Member operators: an update sending an operator object for a member (`{"estimate": {"__op":
//! "Increment", "amount": 3}}`) is applied to the value the state holds, by the meaning every
//! recorded call using that word showed (the `member-operator` rule stage), and answers the
//! computed members beside its recorded answer when every recorded answer did
//! (`ResponseModel::shows_computed`). Learned from parse-server's Task updates (Increment,
//! AddUnique, Remove), confirmed by the reads of each task after them. One recorded application
//! shows such operators: no other corpus app sends an operator object for a member (see the
//! report of this change).

use serde_json::{Map, Value, json};

use crate::state_support::{Served, corpus_write_plans, plan_of, serve_corpus_app};

const UPDATE: &str = "put_parse_classes_task_by_object_id";
const TASK: &str = "get_parse_classes_task_by_object_id";

/// A parse-server item call's arguments: the object id and, for a write, the body.
pub(crate) fn arguments(id: &str, body: Option<Value>) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("objectId".to_owned(), json!(id));
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    arguments
}

fn task(served: &Served, id: &str) -> Value {
    item(served, TASK, id)
}

/// A parse-server item read's body, answered from the state.
pub(crate) fn item(served: &Served, tool: &str, id: &str) -> Value {
    let (answer, is_error) = served.call(tool, arguments(id, None));
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    answer["body"].clone()
}

fn update(served: &Served, id: &str, body: Value) -> (Value, bool) {
    served.call(UPDATE, arguments(id, Some(body)))
}

#[test]
fn parse_operator_updates_are_learned_from_the_reads_after_them() {
    let plans = corpus_write_plans("parse-server");
    let plan = plan_of(&plans, UPDATE);
    assert_eq!(plan["served"], true, "{plan:#}");
    let rule = plan["rules"]
        .as_array()
        .and_then(|rules| rules.iter().find(|rule| rule["stage"] == "member-operator"))
        .unwrap_or_else(|| panic!("the plan holds the member-operator rule: {plan:#}"));
    assert_eq!(rule["explains"], json!(["/estimate", "/tags"]), "{rule:#}");
    assert_eq!(rule["rule"]["key"], "__op", "{rule:#}");
    let operators = &rule["rule"]["operators"];
    assert_eq!(
        operators["Increment"],
        json!({"argument": "amount", "meanings": ["add"]})
    );
    assert_eq!(
        operators["Remove"],
        json!({"argument": "objects", "meanings": ["remove"]})
    );
    // The build's AddUnique put "release" before the "ci" the task held: a union in an order
    // the application chose.
    assert_eq!(
        operators["AddUnique"],
        json!({"argument": "objects", "meanings": ["unordered-union"]})
    );
    assert_eq!(plan["response"]["shows_computed"], true, "{plan:#}");
}

#[test]
fn parse_a_served_increment_changes_the_held_number_and_answers_it() {
    let served = serve_corpus_app("parse-server");
    let before = task(&served, "tskBcn0006");
    assert_eq!(before["estimate"], 1);
    let (answer, is_error) = update(
        &served,
        "tskBcn0006",
        json!({"estimate": {"__op": "Increment", "amount": -1}}),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["estimate"], 0, "{answer}");
    assert!(answer["body"]["updatedAt"].is_string(), "{answer}");
    let after = task(&served, "tskBcn0006");
    assert_eq!(after["estimate"], 0, "{after}");
    // A plain update answers only what its recorded answer showed, and stores what it sent.
    let (answer, is_error) = update(&served, "tskBcn0006", json!({"estimate": 6}));
    assert!(!is_error, "{answer}");
    assert!(answer["body"].get("estimate").is_none(), "{answer}");
    assert_eq!(task(&served, "tskBcn0006")["estimate"], 6);
    // A removal keeps the other items in their order.
    let (answer, is_error) = update(
        &served,
        "tskCbt0007",
        json!({"tags": {"__op": "Remove", "objects": ["docs"]}}),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["tags"], json!(["cleanup"]), "{answer}");
    assert_eq!(task(&served, "tskCbt0007")["tags"], json!(["cleanup"]));
}

#[test]
fn parse_an_operator_never_shown_is_refused_and_changes_nothing() {
    let served = serve_corpus_app("parse-server");
    let before = task(&served, "tskAtl0001");
    for body in [
        // A word no recorded call used (Add keeps duplicates, Delete unsets: never shown).
        json!({"tags": {"__op": "Add", "objects": ["review"]}}),
        json!({"due": {"__op": "Delete"}}),
        // An operator on a member no recorded call sent one for.
        json!({"priority": {"__op": "Increment", "amount": 1}}),
        // A union adding an item, whose place the application chooses.
        json!({"tags": {"__op": "AddUnique", "objects": ["review"]}}),
        // An increment of a held value that is no number.
        json!({"estimate": {"__op": "Increment", "amount": "two"}}),
    ] {
        let (answer, is_error) = update(&served, "tskAtl0001", body.clone());
        assert!(is_error, "{body} was applied: {answer}");
        assert_eq!(
            task(&served, "tskAtl0001"),
            before,
            "{body} changed the task"
        );
    }
}

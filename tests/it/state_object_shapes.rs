//! Object shapes a write stores verbatim (`writes::shapes`): a member a recorded call sent as an
//! object of a key set no held entity stores there, no read after a write showed and no rule
//! explains is refused, not stored as sent. parse-server's Project update sent
//! `members: {"__op": "AddRelation", "objects": […]}` (a relation change, which reads show
//! through `$relatedTo` queries, never as the member) where every project holds
//! `{"__type": "Relation", "className": "Member"}`, and no read of that project followed: the
//! build does not show what the write does, so a served call sending it changes nothing. One
//! recorded application shows such a write: no other corpus app sends a member an object of a
//! shape it never stores (see the report of this change).

use serde_json::{Value, json};

use crate::state_member_operators::{arguments, item};
use crate::state_support::{Served, corpus_write_plans, plan_of, serve_corpus_app};

const UPDATE: &str = "put_parse_classes_project_by_object_id";
const PROJECT: &str = "get_parse_classes_project_by_object_id";

fn project(served: &Served, id: &str) -> Value {
    item(served, PROJECT, id)
}

#[test]
fn parse_a_member_sent_in_a_shape_no_entity_stores_is_not_accepted() {
    let plans = corpus_write_plans("parse-server");
    let plan = plan_of(&plans, UPDATE);
    assert_eq!(plan["served"], true, "{plan:#}");
    let members = plan["body"]["members"]
        .as_object()
        .unwrap_or_else(|| panic!("the plan accepts members: {plan:#}"));
    // The budget update a read confirmed stays; the relation operator no read showed does not.
    assert!(members.contains_key("budget"), "{plan:#}");
    assert!(!members.contains_key("members"), "{plan:#}");
}

#[test]
fn parse_a_relation_operator_is_refused_and_changes_nothing() {
    let served = serve_corpus_app("parse-server");
    let before = project(&served, "prjCobalt3");
    assert_eq!(
        before["members"],
        json!({"__type": "Relation", "className": "Member"})
    );
    for body in [
        json!({"members": {"__op": "AddRelation", "objects": [
            {"__type": "Pointer", "className": "Member", "objectId": "mbrAna0001"}]}}),
        json!({"members": {"__op": "RemoveRelation", "objects": [
            {"__type": "Pointer", "className": "Member", "objectId": "mbrAna0001"}]}}),
    ] {
        let (answer, is_error) = served.call(UPDATE, arguments("prjCobalt3", Some(body.clone())));
        assert!(is_error, "{body} was applied: {answer}");
        assert!(
            answer
                .to_string()
                .contains("was never shown stored by this write"),
            "the refusal names the member: {answer}"
        );
        assert_eq!(
            project(&served, "prjCobalt3"),
            before,
            "{body} changed the project"
        );
    }
    // A plain update of a member a read confirmed is applied.
    let (answer, is_error) = served.call(
        UPDATE,
        arguments("prjCobalt3", Some(json!({"budget": 4000}))),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(project(&served, "prjCobalt3")["budget"], 4000);
}

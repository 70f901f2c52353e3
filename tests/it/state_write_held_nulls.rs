//! Input schemas that do not over-require members (issue 12): a create's member the state's
//! held entities show `null` is optional, stored `null` when left out (`writes::defaults`'s
//! `learn_held_nulls`), and an update that merges, called once, requires nothing
//! (`writes::merge_once`). Flask-AppBuilder's build creates one person sending `name`, `email`
//! and `role` (entry 57) beside a held person without an email (person 4, entries 5 and 41), and
//! updates one person once sending `role` (entry 60, keeping the rest); Django REST framework's
//! build likewise creates one person sending all three (entry 74) beside a held person without an
//! email. Sails and Piccolo show the same evidence (people without an email; Piccolo's tasks
//! without an assignee or a due date). No second app shows a merging update called once.

use serde_json::{Map, Value, json};

use crate::state_support::{
    Served, call_admitted, id_arguments, live_answer, serve_corpus_app, with_body, write_plan,
};

/// The plan's required members and its defaults (member → canonical JSON).
fn required_and_defaults(served: &Served, tool: &str) -> (Vec<String>, Vec<(String, String)>) {
    let plan = write_plan(served, tool);
    assert!(plan.served, "{tool}: {:?}", plan.reason);
    let body = plan.body.as_ref().expect("a body");
    let required = body
        .members
        .iter()
        .filter(|(_, member)| member.required)
        .map(|(name, _)| name.clone())
        .collect();
    let defaults = plan
        .fields
        .as_ref()
        .expect("fields")
        .defaults
        .iter()
        .map(|(name, value)| (name.clone(), value.to_canonical_string()))
        .collect();
    (required, defaults)
}

fn null_default(name: &str) -> (String, String) {
    (name.to_owned(), "null".to_owned())
}

fn item(served: &Served, tool: &str, id: &str) -> (u64, Value) {
    let (answer, _) = served.call(tool, id_arguments(served, tool, id));
    (
        answer["status"].as_u64().expect("a status"),
        answer["body"].clone(),
    )
}

#[test]
fn fab_creates_a_person_without_an_email_and_updates_one_member() {
    let served = serve_corpus_app("fab");
    let (required, defaults) = required_and_defaults(&served, "post_person");
    assert_eq!(required, ["name", "role"]);
    assert_eq!(defaults, [null_default("email")]);
    // probe-crud 18: a person without an email is created, read back holding `email: null`.
    let hana = json!({"name": "Hana Ito", "role": "engineer"});
    let created = call_admitted(
        &served,
        "post_person",
        with_body(&served, "post_person", hana),
    );
    assert_eq!(created["status"], 201, "{created}");
    assert_eq!(
        item(&served, "get_person_by_id", "7"),
        live_answer("fab", "probe-crud", 19)
    );
    // probe-crud 21: the update sends `email` alone (the build's one update sent `role` alone).
    assert!(
        required_and_defaults(&served, "put_person_by_id")
            .0
            .is_empty()
    );
    let mut email = with_body(
        &served,
        "put_person_by_id",
        json!({"email": "hana@example.test"}),
    );
    email.extend(id_arguments(&served, "put_person_by_id", "7"));
    let updated = call_admitted(&served, "put_person_by_id", email);
    assert_eq!(updated["status"], 200, "{updated}");
    assert_eq!(
        item(&served, "get_person_by_id", "7"),
        live_answer("fab", "probe-crud", 22)
    );
    // probe-crud 38: a person without a name answers the keyed refusal naming `name` alone.
    let nameless = with_body(&served, "post_person", json!({"role": "engineer"}));
    let (refused, _) = served.call("post_person", nameless);
    let live = live_answer("fab", "probe-crud", 38);
    assert_eq!(
        (refused["status"].as_u64(), &refused["body"]),
        (Some(live.0), &live.1)
    );
}

#[test]
fn drf_creates_a_person_without_an_email() {
    let served = serve_corpus_app("drf");
    let (required, defaults) = required_and_defaults(&served, "post_people");
    assert_eq!(required, ["name", "role"]);
    assert_eq!(defaults, [null_default("email")]);
    let (before, _) = served.call("get_people", Map::new());
    let ines = json!({"name": "Ines Alba", "role": "designer"});
    let created = call_admitted(
        &served,
        "post_people",
        with_body(&served, "post_people", ines),
    );
    assert_eq!(created["status"], 201, "{created}");
    let id = created["body"]["id"].to_string();
    assert_eq!(
        created["body"],
        json!({"id": created["body"]["id"], "name": "Ines Alba", "email": null, "role": "designer"})
    );
    let (status, read) = item(&served, "get_people_by_people_id", &id);
    assert_eq!((status, &read), (200, &created["body"]));
    let (after, _) = served.call("get_people", Map::new());
    assert_ne!(before["body"], after["body"], "the person is listed");
}

#[test]
fn sails_and_piccolo_leave_out_what_their_held_entities_show_null() {
    let sails = serve_corpus_app("sails");
    let (required, defaults) = required_and_defaults(&sails, "post_person");
    assert_eq!(required, ["name", "role"]);
    assert_eq!(defaults, [null_default("email")]);
    let piccolo = serve_corpus_app("piccolo");
    let (required, defaults) = required_and_defaults(&piccolo, "post_people");
    assert_eq!(required, ["name", "role"]);
    assert_eq!(defaults, [null_default("email")]);
    // Tasks without an assignee or a due date are held; every task holds a title, status,
    // priority and project.
    let (required, defaults) = required_and_defaults(&piccolo, "post_tasks");
    assert_eq!(required, ["priority", "project", "status", "title"]);
    assert_eq!(defaults, [null_default("assignee"), null_default("due")]);
}

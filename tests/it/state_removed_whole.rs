//! A delete answering the removed entity as held (`writes/removed_whole.rs`): FeathersJS,
//! json-server v1 and Sails answer a delete with the record they removed, and every recorded
//! delete of their builds answered exactly the entity as held before it, so a served delete
//! answers the removed entity whole, as the item view showed it just before the delete, never
//! the members (or the values of members) the recorded delete's entity happened to hold. Kinto's
//! tombstone (`{"id": …, "last_modified": …, "deleted": true}`) stays a projection.

use serde_json::{Map, Value, json};

use rea_state::writes::model::ResponseKind;

use crate::state_support::{
    Served, id_arguments, live_answer, serve, serve_corpus_app, with_body, write_plan,
};

/// Calls a tool, asserting it answered without a tool error.
fn called(served: &Served, tool: &str, arguments: Map<String, Value>) -> Value {
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{tool}: {answer}");
    answer
}

/// The delete tool's plan answers the removed entity whole.
fn assert_answers_whole(served: &Served, tool: &str) {
    let plan = write_plan(served, tool);
    assert!(plan.served, "{tool}: {:?}", plan.reason);
    let response = plan.response.as_ref().expect("a recorded answer");
    assert_eq!(response.kind, ResponseKind::Entity, "{tool}: {response:?}");
}

/// Creates an entity with `body`, reads it by id and deletes it (with the `query` arguments):
/// the delete answers what the item read showed, and the entity is gone after it.
fn delete_answers_item(served: &Served, tools: [&str; 3], body: Value, query: &[(&str, &str)]) {
    let [create, item, delete] = tools;
    let created = called(served, create, with_body(served, create, body));
    let id = match &created["body"]["id"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let shown = called(served, item, id_arguments(served, item, &id));
    assert_eq!(shown["status"], 200, "{shown}");
    let mut arguments = id_arguments(served, delete, &id);
    for (name, value) in query {
        arguments.insert((*name).to_owned(), json!(value));
    }
    let deleted = called(served, delete, arguments);
    assert_eq!(deleted["body"], shown["body"], "{deleted}");
    let (gone, _) = served.call(item, id_arguments(served, item, &id));
    assert_eq!(gone["status"], 404, "{gone}");
}

#[test]
fn a_feathers_person_delete_answers_the_email_a_patch_gave() {
    // probe-crud 28-33: Oskar created with an email, the email patched, then deleted; the
    // build's delete (entry 84) removed Noor after a `PUT` had dropped hers.
    let served = serve_corpus_app("feathers");
    assert_answers_whole(&served, "delete_people_by_id");
    let (_, oskar) = live_answer("feathers", "probe-crud", 28);
    let oskar = json!({"name": oskar["name"], "role": oskar["role"], "email": oskar["email"]});
    called(
        &served,
        "post_people",
        with_body(&served, "post_people", oskar),
    );
    let patch = json!({"email": "oskar.lind@example.test"});
    let mut arguments = with_body(&served, "patch_people_by_id", patch);
    arguments.extend(id_arguments(&served, "patch_people_by_id", "6"));
    called(&served, "patch_people_by_id", arguments);
    let deleted = called(
        &served,
        "delete_people_by_id",
        id_arguments(&served, "delete_people_by_id", "6"),
    );
    assert_eq!(
        deleted["body"],
        live_answer("feathers", "probe-crud", 33).1,
        "{deleted}"
    );
}

#[test]
fn a_json_server_ticket_delete_answers_only_the_members_it_holds() {
    // The build's ticket delete (entry 57) answered a ticket holding `sla` and `tags`; a ticket
    // created with a subject and a customer alone (as entry 34's) answers those and its id.
    let served = serve_corpus_app("json-server-v1");
    assert_answers_whole(&served, "delete_tickets_by_id");
    assert_answers_whole(&served, "delete_customers_by_id");
    let ticket = json!({"subject": "Question about invoices", "customerId": "c3"});
    let tools = ["post_tickets", "get_tickets_by_id", "delete_tickets_by_id"];
    delete_answers_item(&served, tools, ticket, &[("_dependent", "notes")]);
}

#[test]
fn sails_deletes_answer_the_person_and_the_task_as_held() {
    // The build's person delete (entry 90) answered Noor as the patch before it left her; a
    // person created and deleted answers as the item read before the delete showed it (its own
    // clocks). Its task delete (entry 73) answered the task with its project expanded, as the
    // task's item read shows it: a seeded task's delete answers the task as its read showed it.
    let served = serve_corpus_app("sails");
    assert_answers_whole(&served, "delete_person_by_id");
    assert_answers_whole(&served, "delete_task_by_id");
    let person = json!({"name": "Pia Berg", "role": "engineer", "email": "pia@example.test"});
    let tools = ["post_person", "get_person_by_id", "delete_person_by_id"];
    delete_answers_item(&served, tools, person, &[]);
    let shown = called(
        &served,
        "get_task_by_id",
        id_arguments(&served, "get_task_by_id", "1"),
    );
    let deleted = called(
        &served,
        "delete_task_by_id",
        id_arguments(&served, "delete_task_by_id", "1"),
    );
    assert_eq!(deleted["body"], shown["body"], "{deleted}");
}

#[test]
fn a_tombstone_answer_stays_a_projection() {
    let served = serve("kinto/build.har");
    let plan = served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.effect == rea_state::writes::model::Effect::Delete && plan.served)
        .expect("a served delete");
    let response = plan.response.as_ref().expect("a recorded answer");
    assert_eq!(response.kind, ResponseKind::Projection, "{response:?}");
}

//! Entities a served create made and answered whole (`read.rs::made_whole`): a create whose
//! answer is the written entity whole may leave out a member every recorded entity of its type
//! carried. It answers the entity without that member, and so do the type's item and list views
//! afterwards, instead of refusing the entity as incomplete (`incomplete_entity`) after the
//! create itself answered it. An entity the recording showed without such a member is still
//! refused (the state does not know what it lacks).
//!
//! Recorded apps: json-server's users created through the inferred create (sibling transfer of
//! `POST /posts`) without an `email` every recorded user had; Roundup's issues, held from list
//! reads showing fewer properties than the item reads did, as the contrast. The corpus's other
//! served creates answering the entity whole (directus's tasks, FeathersJS's tasks) fill such a
//! member with the default their recorded answers showed (`null`), so nothing is left out there.

use serde_json::{Value, json};

use crate::state_sibling_transfer::{arguments, call, held, served, with_transfer};
use crate::state_support::{id_arguments, serve_corpus_app};

#[test]
fn a_user_created_without_a_member_every_user_carried_reads_and_lists_as_its_create_answered() {
    let served = served("json-server", with_transfer());
    let (_, user) = held(&served, "/users");
    assert!(user.contains_key("email"), "{user:?}");
    let mut body = user.clone();
    body.remove("id");
    body.remove("email");
    let created = call(
        &served,
        "post_users",
        arguments(&served, "post_users", None, Some(Value::Object(body))),
    );
    assert_eq!(created["state"]["view"], "create", "{created}");
    assert!(created["body"].get("email").is_none(), "{created}");
    let id = created["state"]["id"].as_str().expect("the created id");
    let read = call(
        &served,
        "get_users_by_id",
        Value::Object(id_arguments(&served, "get_users_by_id", id)),
    );
    assert_eq!(read["state"]["source"], "state", "{read}");
    assert_eq!(read["body"], created["body"]);
    let listed = call(&served, "get_users", json!({}));
    let users = listed["body"].as_array().expect("a list");
    assert_eq!(users.last(), Some(&created["body"]), "{listed}");
}

#[test]
fn an_entity_the_recording_showed_without_a_required_member_is_still_refused() {
    let served = serve_corpus_app("roundup");
    let tool = "get_rt_rest_data_issue_by_id";
    let (answer, error) = served.call(tool, id_arguments(&served, tool, "2"));
    assert!(error, "{answer}");
    assert!(answer.to_string().contains("incomplete_entity"), "{answer}");
    let entity = served
        .state()
        .entities
        .iter()
        .find(|entity| entity.collection.ends_with("/issue") && entity.id == "2")
        .expect("issue 2 is held");
    assert!(!entity.record_ordinals.is_empty(), "{entity:?}");
}

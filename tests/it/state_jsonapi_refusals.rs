//! Create refusals learned on the second JSON:API app of the corpus (issue 12), drf-jsonapi
//! (Django REST framework JSON:API, `tests/corpus/apps/drf-jsonapi/`): a taken value nested in
//! the sent object is a create conflict (`writes/conflict.rs`: the member's `email` under
//! `attributes`, refused 400 as build.har's entry 73 shows), and a `type` other than the
//! collection's answers the refusal another create tool met, renamed (`writes/constant_refusal.rs`:
//! learned from the book create's 409 of entry 74, answered for the member create). safrs is the
//! first app of both rules (`state_nested_creates`: `attributes.code`, `Task != User`).

use serde_json::{Map, Value, json};

use crate::state_support::{serve_corpus_app, write_plan as plan};

fn body(body: Value) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("body".into(), body);
    arguments
}

#[test]
fn a_taken_email_nested_in_the_sent_member_is_refused_and_a_fresh_one_created() {
    let served = serve_corpus_app("drf-jsonapi");
    let create = plan(&served, "post_members");
    assert!(create.served, "{:?}", create.reason);
    let conflicts: Vec<&str> = create
        .conflicts
        .iter()
        .map(|conflict| conflict.member.as_str())
        .collect();
    assert_eq!(conflicts, ["/attributes/email"]);
    let taken = json!({"data": {"type": "Member", "attributes": {"name": "Noor Again", "email": "noor@example.test"}}});
    let (answer, _) = served.call("post_members", body(taken));
    assert_eq!(answer["status"], 400, "{answer:#}");
    assert_eq!(
        answer["body"]["errors"][0]["source"]["pointer"], "/data/attributes/email",
        "{answer:#}"
    );
    let fresh = json!({"data": {"type": "Member", "attributes": {"name": "Rae Kim", "email": "rae@example.test"}}});
    let (answer, is_error) = served.call("post_members", body(fresh));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 201, "{answer:#}");
    assert_eq!(
        answer["body"]["data"]["attributes"]["email"],
        "rae@example.test"
    );
}

#[test]
fn a_type_other_than_the_members_is_refused_naming_both() {
    let served = serve_corpus_app("drf-jsonapi");
    // Learned from the book create's refusal (entry 74, `Author` sent to `/books/`).
    let wrong = json!({"data": {"type": "Book", "attributes": {"name": "Rae"}}});
    let (answer, _) = served.call("post_members", body(wrong));
    assert_eq!(answer["status"], 409, "{answer:#}");
    let detail = answer["body"]["errors"][0]["detail"]
        .as_str()
        .expect("a detail");
    assert!(
        detail.starts_with("The resource object's type (Book) is not the type")
            && detail.ends_with("the endpoint (Member)."),
        "{detail}"
    );
}

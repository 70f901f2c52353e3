//! Sibling transfer (opt-in, `[manifest] sibling_transfer = true`): a write confirmed on one
//! collection is offered on a sibling collection of the same route family and entity shape that
//! the recording only read, as an inferred tool (`rea_manifest::siblings`) serving the source's
//! plan carried over (`rea_state::writes::siblings`). On two recorded apps: json-server (creates,
//! merges and replaces confirmed on `/posts`, offered on `/comments` and `/users`) and
//! json-server-v1 (the merge confirmed on `/tickets/{id}`, offered on `/customers/{id}` and
//! `/notes/{id}`; the customer delete, answering the deleted customer whole, offered on
//! `/notes/{id}` answering the deleted note). parse-server's Task update, answered as recorded
//! with only the stamp its clock rule sets (`{"updatedAt": …}`), is offered on the Member class
//! (one recorded app shows such an answer). json-server's replace confirmed on `/posts/{id}` is
//! offered on its `/profile` document, which the build only merged (`PATCH`): the sent object
//! becomes the document (one recorded app; json-server-v1 wrote its `/settings` document with both
//! methods, so nothing is inferred there). Off by default; replay never lists an inferred tool.

use std::sync::Arc;

use rea_backends::Serving;
use rea_backends::fetch::FetchOptions;
use rea_evidence::capture::capture_records;
use rea_manifest::catalog::ArgumentTarget;
use rea_manifest::{Environment, TemplateRules, project_manifest_evidence};
use rea_serve::ToolBackend;
use rea_state::rules::RuleSet;
use serde_json::{Map, Value, json};

use crate::state_support::{RULES, Served, capture_file, state_rules};

fn app_dir(name: &str) -> std::path::PathBuf {
    rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots())
        .into_iter()
        .find(|app| app.name == name)
        .unwrap_or_else(|| panic!("the corpus holds {name}"))
        .dir
}

/// An app's build served from the state, the manifest projected with these rule stages.
pub(crate) fn served(app: &str, rules: Arc<RuleSet>) -> Served {
    let capture = capture_file(&app_dir(app).join("build.har"));
    let templating = rules.templating(&TemplateRules::parse(&RULES).expect("rules"));
    let (manifest, _) = project_manifest_evidence(&capture, &templating).expect("manifest");
    let records = capture_records(&capture).expect("records");
    let environment = || Environment::new(&manifest, capture.id(), records.clone()).expect("env");
    match rea_backends::prepare_with(
        environment(),
        &manifest,
        &capture,
        &manifest.name,
        rules,
        FetchOptions::default(),
    ) {
        Serving::State { backend, plane, .. } => Served {
            replay: environment(),
            manifest,
            records,
            backend,
            plane,
        },
        Serving::Replay { refusal, .. } => panic!("{app}: no state: {refusal:?}"),
    }
}

pub(crate) fn with_transfer() -> Arc<RuleSet> {
    Arc::new((*state_rules()).clone().with_sibling_transfer(true))
}

/// The served catalog's description of a tool (`None`: not listed).
fn listed(served: &Served, tool: &str) -> Option<String> {
    served
        .backend
        .tools()
        .iter()
        .find(|descriptor| descriptor.name == tool)
        .map(|descriptor| descriptor.description.clone())
}

/// A call's arguments: the path parameters by name, and the body.
pub(crate) fn arguments(
    served: &Served,
    tool: &str,
    id: Option<&str>,
    body: Option<Value>,
) -> Value {
    let definition = served
        .replay
        .tool(tool)
        .expect("the manifest holds the tool");
    let mut arguments = Map::new();
    for argument in &definition.input_schema.arguments {
        match (&argument.target, id, &body) {
            (ArgumentTarget::Path { .. }, Some(id), _) => {
                arguments.insert(argument.name.clone(), Value::String(id.to_owned()));
            }
            (ArgumentTarget::Body, _, Some(body)) => {
                arguments.insert(argument.name.clone(), body.clone());
            }
            _ => {}
        }
    }
    Value::Object(arguments)
}

pub(crate) fn call(served: &Served, tool: &str, arguments: Value) -> Value {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are an object")
    };
    let (answer, error) = served.call(tool, arguments);
    assert!(!error, "{tool}: {answer}");
    answer
}

/// An item read by id, answered from the state.
fn read_from_state(served: &Served, tool: &str, id: &str) -> Value {
    let read = call(served, tool, arguments(served, tool, Some(id), None));
    assert_eq!(read["state"]["source"], "state", "{tool}: {read}");
    read
}

/// The first entity the state holds of a type, as `(id, fields)`.
pub(crate) fn held(served: &Served, entity_type: &str) -> (String, Map<String, Value>) {
    let entity = served
        .state()
        .entities
        .iter()
        .find(|entity| entity.entity_type == entity_type)
        .unwrap_or_else(|| panic!("the state holds a {entity_type} entity"));
    let Ok(Value::Object(fields)) = entity.fields.to_serde_value() else {
        panic!("an entity is an object")
    };
    (entity.id.clone(), fields)
}

/// Asserts that a tool's plan is served, carried over from `source`.
fn assert_inferred(served: &Served, tool: &str, source: &str) {
    let plan = served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.tool == tool)
        .unwrap_or_else(|| panic!("a plan for {tool}"));
    assert!(plan.served, "{tool}: {:?}", plan.reason);
    assert_eq!(plan.inferred_from.as_deref(), Some(source), "{tool}");
}

/// A string member of an entity other than its identity.
fn string_member(fields: &Map<String, Value>) -> String {
    fields
        .iter()
        .find(|(name, value)| *name != "id" && value.is_string())
        .map(|(name, _)| name.clone())
        .expect("a string member")
}

#[test]
fn sibling_transfer_is_off_by_default_and_replay_never_lists_an_inferred_tool() {
    for app in ["json-server", "json-server-v1"] {
        let plain = served(app, state_rules());
        assert!(
            plain
                .manifest
                .tools
                .iter()
                .all(|tool| tool.inferred_from.is_none()),
            "{app}: the default pipeline infers nothing"
        );
        let on = served(app, with_transfer());
        let inferred: Vec<&str> = on
            .manifest
            .tools
            .iter()
            .filter(|tool| tool.inferred_from.is_some())
            .map(|tool| tool.name.as_str())
            .collect();
        assert!(!inferred.is_empty(), "{app}: siblings are offered");
        for name in &inferred {
            assert!(on.replay.is_inferred(name));
            assert!(
                on.replay
                    .replay_tools()
                    .iter()
                    .all(|tool| tool.name != *name),
                "{app}: replay has no recording of {name}"
            );
        }
    }
}

#[test]
fn json_server_serves_creates_merges_and_replaces_on_sibling_collections() {
    let served = served("json-server", with_transfer());
    for (tool, source) in [
        ("post_users", "post_posts"),
        ("post_comments", "post_posts"),
        ("patch_comments_by_id", "patch_posts_by_id"),
        ("put_users_by_id", "put_posts_by_id"),
    ] {
        let description = listed(&served, tool).unwrap_or_else(|| panic!("{tool} is listed"));
        assert!(
            description.contains(&format!(
                "inferred: carried over from the confirmed write \"{source}\""
            )),
            "{tool}: {description}"
        );
        let plan = served
            .state()
            .write_plans
            .iter()
            .find(|plan| plan.tool == tool)
            .expect("a plan");
        assert!(plan.served && plan.record_ordinals.is_empty());
        assert_eq!(plan.inferred_from.as_deref(), Some(source));
    }
    let coverage = rea_state::coverage::summary(served.state());
    assert!(
        coverage["writes"]["served"]
            .as_array()
            .expect("served writes")
            .contains(
                &json!({"tool": "post_users", "effect": "create", "inferred_from": "post_posts"})
            ),
        "{coverage}"
    );
    // A create on /users: the sent members, an id after the held ones, read back and listed.
    let (_, user) = held(&served, "/users");
    let member = string_member(&user);
    let mut body = user.clone();
    body.remove("id");
    body.insert(member.clone(), json!("Sibling"));
    let before = call(&served, "get_users", json!({}))["body"]
        .as_array()
        .expect("a list")
        .len();
    let created = call(
        &served,
        "post_users",
        arguments(&served, "post_users", None, Some(Value::Object(body))),
    );
    assert_eq!(created["state"]["view"], "create", "{created}");
    let id = created["state"]["id"]
        .as_str()
        .expect("the created id")
        .to_owned();
    let read = read_from_state(&served, "get_users_by_id", &id);
    assert_eq!(read["body"][&member], "Sibling");
    let after = call(&served, "get_users", json!({}))["body"]
        .as_array()
        .expect("a list")
        .len();
    assert_eq!(after, before + 1);
    // A merge on /comments keeps what it does not send.
    let (comment_id, comment) = held(&served, "/comments");
    let member = string_member(&comment);
    call(
        &served,
        "patch_comments_by_id",
        arguments(
            &served,
            "patch_comments_by_id",
            Some(&comment_id),
            Some(json!({member.clone(): "Merged"})),
        ),
    );
    let read = call(
        &served,
        "get_comments_by_id",
        arguments(&served, "get_comments_by_id", Some(&comment_id), None),
    );
    assert_eq!(read["body"][&member], "Merged");
    assert_eq!(
        read["body"].as_object().expect("an entity").len(),
        comment.len(),
        "{read}"
    );
}

#[test]
fn json_server_v1_serves_the_ticket_merge_on_customers() {
    let served = served("json-server-v1", with_transfer());
    let description = listed(&served, "patch_customers_by_id").expect("listed");
    assert!(
        description
            .contains("inferred: carried over from the confirmed write \"patch_tickets_by_id\""),
        "{description}"
    );
    let (id, customer) = held(&served, "/customers");
    let member = string_member(&customer);
    let answer = call(
        &served,
        "patch_customers_by_id",
        arguments(
            &served,
            "patch_customers_by_id",
            Some(&id),
            Some(json!({member.clone(): "Sibling"})),
        ),
    );
    assert_eq!(answer["state"]["view"], "update", "{answer}");
    let read = read_from_state(&served, "get_customers_by_id", &id);
    assert_eq!(read["body"][&member], "Sibling");
    for (name, value) in &customer {
        if *name != member {
            assert_eq!(&read["body"][name], value, "{name} is kept by the merge");
        }
    }
    // The served POST /notes carries over to /customers (json-server 1.x customers send their id).
    assert_inferred(&served, "post_customers", "post_notes");
}

#[test]
fn json_server_v1_serves_the_customer_delete_on_notes_answering_the_deleted_note() {
    // `DELETE /customers/{id}` answers the deleted customer whole (every field customers store):
    // on `/notes/{id}` it answers the deleted note whole, never a customer's recorded members.
    let served = served("json-server-v1", with_transfer());
    assert_inferred(&served, "delete_notes_by_id", "delete_customers_by_id");
    let (id, note) = held(&served, "/notes");
    let before = call(&served, "get_notes", json!({}))["body"]
        .as_array()
        .expect("a list")
        .len();
    let deleted = call(
        &served,
        "delete_notes_by_id",
        arguments(&served, "delete_notes_by_id", Some(&id), None),
    );
    assert_eq!(deleted["state"]["view"], "delete", "{deleted}");
    assert_eq!(deleted["body"], Value::Object(note), "{deleted}");
    let notes = call(&served, "get_notes", json!({}));
    assert_eq!(notes["state"]["source"], "state", "{notes}");
    let listed_ids: Vec<&Value> = notes["body"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|note| &note["id"])
        .collect();
    assert_eq!(listed_ids.len(), before - 1, "{notes}");
    assert!(!listed_ids.contains(&&Value::String(id.clone())), "{notes}");
}

#[test]
fn json_server_v1_carries_the_customer_deletes_cleared_relation_to_the_agent_delete() {
    // The customer delete clears `customerId` on the tickets naming it (learned from the build);
    // on `/agents/{id}` the inferred delete clears the tickets' `agentId`, the one member of
    // tickets holding agent ids only.
    let served = served("json-server-v1", with_transfer());
    assert_inferred(&served, "delete_agents_by_id", "delete_customers_by_id");
    let tickets = call(&served, "get_tickets", json!({}));
    let naming = |tickets: &Value, agent: &str| -> usize {
        let list = tickets["body"].as_array().expect("a list");
        list.iter()
            .filter(|ticket| ticket["agentId"] == agent)
            .count()
    };
    let (agent, _) = held(&served, "/agents");
    assert!(naming(&tickets, &agent) > 0, "{agent}: {tickets}");
    let listed_before = tickets["body"].as_array().expect("a list").len();
    let deleted = call(
        &served,
        "delete_agents_by_id",
        arguments(&served, "delete_agents_by_id", Some(&agent), None),
    );
    assert_eq!(deleted["state"]["view"], "delete", "{deleted}");
    let tickets = call(&served, "get_tickets", json!({}));
    assert_eq!(tickets["state"]["source"], "state", "{tickets}");
    assert_eq!(naming(&tickets, &agent), 0, "{tickets}");
    let list = tickets["body"].as_array().expect("a list");
    assert_eq!(list.len(), listed_before, "cleared, not removed: {tickets}");
    assert!(
        list.iter().any(|ticket| ticket["agentId"].is_null()),
        "{tickets}"
    );
}

/// A read by id of an entity the state does not hold, on a tool that recorded no such answer.
fn missing_read(served: &Served, tool: &str) -> (Value, bool) {
    let Value::Object(arguments) = arguments(served, tool, Some("9999"), None) else {
        unreachable!("arguments are an object")
    };
    served.call(tool, arguments)
}

#[test]
fn a_missing_entity_is_answered_as_sibling_item_views_all_answer_it() {
    // json-server 0.17 recorded `404 {}` for a missing post and a missing comment, never for a
    // user; json-server 1.x `404 Not Found` for a missing ticket and customer, never for a note.
    for (app, tool, body) in [
        ("json-server", "get_users_by_id", json!({})),
        ("json-server-v1", "get_notes_by_id", json!("Not Found")),
    ] {
        let (answer, error) = missing_read(&served(app, with_transfer()), tool);
        assert!(!error, "{app}: {answer}");
        assert_eq!(answer["status"], 404, "{app}: {answer}");
        assert_eq!(answer["state"]["view"], "missing", "{app}: {answer}");
        assert_eq!(answer["body"], body, "{app}: {answer}");
        // Off by default: the tool has no missing answer of its own to give.
        let (refused, error) = missing_read(&served(app, state_rules()), tool);
        assert!(error, "{app}: {refused}");
    }
}

/// An app's missing-entity answer on a tool that recorded none, lent by a sibling item view
/// (sibling transfer on): asserts its status and the `missing` view.
fn borrowed_missing(app: &str, tool: &str, status: u16) -> Value {
    let (answer, error) = missing_read(&served(app, with_transfer()), tool);
    assert!(!error, "{app}: {answer}");
    assert_eq!(answer["status"], status, "{app}: {answer}");
    assert_eq!(answer["state"]["view"], "missing", "{app}: {answer}");
    answer
}

#[test]
fn a_missing_entity_is_answered_as_one_sibling_answers_it_when_that_answer_names_nothing() {
    // directus recorded `403` "You don't have permission to access this." for a deleted task
    // (its body names neither `tasks` nor the id), never for a project: one sibling suffices (an
    // answer naming its collection in another form than the segment is not borrowed: the unit
    // test one_sibling_missing_answer_naming_nothing_of_its_path_is_borrowed).
    let answer = borrowed_missing("directus", "get_items_projects_by_id", 403);
    assert_eq!(
        answer["body"]["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{answer}"
    );
}

#[test]
fn one_sibling_missing_answer_is_rendered_for_the_called_collection_and_id() {
    // Roundup recorded `404 {"error": {"status": 404, "msg": "no such issue 99"}}` for a missing
    // issue, never for a message: the sentence names its collection and id as whole path segments,
    // so the message view answers it renamed. datasette's row pages of the tables with numeric keys
    // (one tool, `/tracker/{prefix-variance}/{numeric}.json`) recorded `Row not found`, lent to the
    // projects page (its own tool, keyed by code) that never recorded one.
    let answer = borrowed_missing("roundup", "get_rt_rest_data_msg_by_id", 404);
    assert_eq!(
        answer["body"]["error"]["msg"], "no such msg 9999",
        "{answer}"
    );
    let answer = borrowed_missing("datasette", "get_tracker_projects_by_id", 404);
    assert_eq!(answer["body"]["error"], "Row not found", "{answer}");
    // Off by default: neither tool has a missing answer of its own.
    let (_, error) = missing_read(
        &served("roundup", state_rules()),
        "get_rt_rest_data_msg_by_id",
    );
    assert!(error);
}

#[test]
fn parse_serves_the_task_update_on_members_answering_the_stamp_its_clock_sets() {
    // Recorded as is, the Task update's answer `{"updatedAt": …}` shows only the member its
    // clock rule stamps, which members hold too: it names nothing of a task, so the update
    // carries over to the Member class the build only read and created. (One recorded app shows
    // an update answering only a stamp: no other corpus app's transfer changes.)
    let parse = served("parse-server", with_transfer());
    const UPDATE: &str = "put_parse_classes_member_by_object_id";
    const READ: &str = "get_parse_classes_member_by_object_id";
    assert_inferred(&parse, UPDATE, "put_parse_classes_task_by_object_id");
    let before = read_from_state(&parse, READ, "mbrChen003");
    assert_eq!(before["body"]["active"], false, "{before}");
    let body = json!({"active": true, "role": "lead"});
    let answer = call(
        &parse,
        UPDATE,
        arguments(&parse, UPDATE, Some("mbrChen003"), Some(body)),
    );
    let shown: Vec<&String> = answer["body"]
        .as_object()
        .expect("an object")
        .keys()
        .collect();
    assert_eq!(shown, ["updatedAt"], "{answer}");
    let after = read_from_state(&parse, READ, "mbrChen003");
    assert_eq!(after["body"]["active"], true, "{after}");
    assert_eq!(after["body"]["role"], "lead", "{after}");
    assert!(answer["body"]["updatedAt"].is_string(), "{answer}");
    assert_ne!(after["body"]["updatedAt"], before["body"]["updatedAt"]);
    // The Task plan's operator rule explains task fields only: it stays behind, so an operator
    // object sent for a member's field is refused and changes nothing.
    let operator = json!({"active": {"__op": "Increment", "amount": 1}});
    let Value::Object(refused) = arguments(&parse, UPDATE, Some("mbrChen003"), Some(operator))
    else {
        unreachable!("arguments are an object")
    };
    let (refusal, error) = parse.call(UPDATE, refused);
    assert!(error, "{refusal}");
    assert_eq!(read_from_state(&parse, READ, "mbrChen003"), after);
}

/// flexget's routes end in a slash (`/api/entry_list/`): the trailing slash names no collection
/// segment, so the list create confirmed on entry lists is offered on the movie lists the build
/// only read, with its recorded refusal of a taken name; and the movies of the list it made,
/// which no recording listed, are none (a list under an item a served create made).
#[test]
fn a_slash_terminated_list_create_is_offered_on_its_sibling_list() {
    let served = served("flexget", with_transfer());
    let tool = "post_movie_list";
    assert_inferred(&served, tool, "post_entry_list");
    let created = call(
        &served,
        tool,
        arguments(&served, tool, None, Some(json!({"name": "noir"}))),
    );
    assert_eq!(created["status"], 201, "{created}");
    assert_eq!(created["body"]["name"], "noir", "{created}");
    let id = created["body"]["id"].to_string();
    let movies = "get_movie_list_movies_by_movie_list_id";
    let listed = call(&served, movies, arguments(&served, movies, Some(&id), None));
    assert_eq!(listed["state"]["source"], "state", "{listed}");
    assert_eq!(listed["body"], json!([]), "{listed}");
    // A list the build held but never listed the movies of is still not known.
    let unknown = served.call(
        movies,
        arguments(&served, movies, Some("2"), None)
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    assert_ne!(unknown.0["body"], json!([]), "{:?}", unknown);
    let again = call(
        &served,
        tool,
        arguments(&served, tool, None, Some(json!({"name": "noir"}))),
    );
    assert_eq!(again["status"], 409, "{again}");
    assert_eq!(
        again["body"]["message"], "list with name 'noir' already exists",
        "{again}"
    );
}

/// The document a read view holds, as derived.
fn held_document(served: &Served, view: &str) -> Map<String, Value> {
    let document = served
        .state()
        .documents
        .iter()
        .find(|document| document.view == view)
        .unwrap_or_else(|| panic!("the state holds the {view} document"));
    let Ok(Value::Object(members)) = document.value.to_serde_value() else {
        panic!("the document is an object")
    };
    members
}

#[test]
fn json_server_replaces_the_profile_document_as_its_posts_replace_confirmed() {
    // The build confirmed `PUT /posts/{id}` as a replace and `PATCH /profile` as a merge: the
    // replace is offered on the document, inferred, and the sent object becomes the document.
    let served = served("json-server", with_transfer());
    assert_inferred(&served, "put_profile", "put_posts_by_id");
    let description = listed(&served, "put_profile").expect("put_profile is listed");
    assert!(
        description.contains("inferred: carried over from the confirmed write \"put_posts_by_id\""),
        "{description}"
    );
    let coverage = rea_state::coverage::summary(served.state());
    assert!(
        coverage["writes"]["served"]
            .as_array()
            .expect("served writes")
            .contains(&json!({
                "tool": "put_profile", "effect": "document", "inferred_from": "put_posts_by_id"
            })),
        "{coverage}"
    );
    let document = held_document(&served, "get_profile");
    let mut members = document.keys();
    let (changed, dropped) = (
        members.next().expect("a member").clone(),
        members.next().expect("a second member").clone(),
    );
    let mut sent = document.clone();
    sent.remove(&dropped);
    sent.insert(changed.clone(), json!("replaced"));
    let answer = call(
        &served,
        "put_profile",
        arguments(
            &served,
            "put_profile",
            None,
            Some(Value::Object(sent.clone())),
        ),
    );
    assert_eq!(answer["body"], Value::Object(sent.clone()), "{answer}");
    let read = call(&served, "get_profile", json!({}));
    assert_eq!(
        read["body"],
        Value::Object(sent),
        "{read}: {dropped} is gone"
    );
    // The document's own merge still keeps what it does not send.
    let merged = call(
        &served,
        "patch_profile",
        arguments(
            &served,
            "patch_profile",
            None,
            Some(json!({ changed.clone(): "merged" })),
        ),
    );
    assert_eq!(merged["body"][&changed], "merged", "{merged}");
    assert!(merged["body"].get(&dropped).is_none(), "{merged}");
    assert_eq!(
        merged["body"].as_object().map(Map::len),
        Some(document.len() - 1)
    );
}

#[test]
fn json_server_v1_offers_no_update_on_a_document_it_wrote_with_both_methods() {
    // json-server 1.x's build wrote `/settings` with both PATCH and PUT: each has its own
    // recorded plan (whether served is its own learning's matter), nothing is inferred there.
    let served = served("json-server-v1", with_transfer());
    let on_settings: Vec<_> = served
        .state()
        .write_plans
        .iter()
        .filter(|plan| plan.path_template == "/settings")
        .map(|plan| (plan.method.clone(), plan.inferred_from.clone()))
        .collect();
    assert_eq!(
        on_settings,
        vec![("PATCH".to_owned(), None), ("PUT".to_owned(), None)]
    );
}

#[test]
fn a_write_without_its_own_missing_answer_answers_as_its_sibling_writes_did() {
    // Fortune.js recorded a missing task's delete (build entry 98, `A record to be deleted could
    // not be found.`, naming no collection), never a missing person's: the person delete answers
    // it, not the people read's `No records match the request.` (entry 73).
    let served = served("fortune", with_transfer());
    let (answer, error) = missing_read(&served, "delete_people_by_id");
    assert!(!error, "{answer}");
    assert_eq!(answer["status"], 404, "{answer}");
    let detail = &answer["body"]["errors"][0]["detail"];
    assert_eq!(
        detail, "A record to be deleted could not be found.",
        "{answer}"
    );
    let (read, _) = missing_read(&served, "get_people_by_id");
    assert_eq!(
        read["body"]["errors"][0]["detail"],
        "No records match the request."
    );
    // Off by default: the read's.
    let (answer, _) = missing_read(&served_off("fortune"), "delete_people_by_id");
    assert_eq!(
        answer["body"]["errors"][0]["detail"], "No records match the request.",
        "{answer}"
    );
}

fn served_off(app: &str) -> Served {
    served(app, state_rules())
}
